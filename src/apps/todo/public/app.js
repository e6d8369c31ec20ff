// The todo page: signs in at the IdP's token endpoint, then calls the todo API with the
// access token (never the ID token). Every refusal from the API is shown as it came.
'use strict';

const config = fetch('/config.json').then((r) => r.json());
let accessToken = '';
const names = new Map();

const $ = (id) => document.getElementById(id);

function show(message, ok = false) {
  $('status').textContent = message;
  $('status').className = ok ? 'ok' : '';
}

async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: { authorization: `Bearer ${accessToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (res.status === 204) return null;
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`${res.status} ${data.message || data.error_description || data.error || ''}`);
  return data;
}

async function ownerName(id) {
  if (!names.has(id)) names.set(id, api('GET', `/users/${encodeURIComponent(id)}`).then((u) => u.name, () => id));
  return names.get(id);
}

async function render() {
  const { todos } = await api('GET', '/todos');
  const list = $('todos');
  list.replaceChildren();
  for (const todo of todos) {
    const li = document.createElement('li');
    li.className = todo.completed ? 'done' : '';
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = todo.completed;
    box.onchange = () => act(() => api('PUT', `/todos/${todo.id}`, { completed: box.checked }), 'updated');
    const title = document.createElement('span');
    title.className = 'title';
    title.textContent = todo.title;
    const owner = document.createElement('span');
    owner.className = 'owner';
    ownerName(todo.owner_id).then((n) => (owner.textContent = n));
    const del = document.createElement('button');
    del.textContent = 'Delete';
    del.onclick = () => act(() => api('DELETE', `/todos/${todo.id}`), 'deleted');
    li.append(box, title, owner, del);
    list.append(li);
  }
}

async function act(action, done) {
  try {
    await action();
    show(done, true);
  } catch (err) {
    show(err.message);
  }
  await render().catch((err) => show(err.message));
}

$('login').onsubmit = async (event) => {
  event.preventDefault();
  try {
    const res = await fetch(`${(await config).auth_url}/api/v1/idp/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: $('user').value, password: $('password').value }),
    });
    const data = await res.json();
    if (!res.ok) throw new Error(`${res.status} ${data.error_description || data.error}`);
    accessToken = data.access_token;
    $('who').textContent = `signed in as ${$('user').value}`;
    $('add').hidden = false;
    await act(async () => undefined, 'signed in');
  } catch (err) {
    show(err.message);
  }
};

$('add').onsubmit = (event) => {
  event.preventDefault();
  const title = $('title').value;
  $('title').value = '';
  act(() => api('POST', '/todos', { title }), 'added');
};
