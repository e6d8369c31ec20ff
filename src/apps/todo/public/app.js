// The todo page: signs in at the IdP with the authorization code flow (sign-in.js), then
// calls the todo API with the access token (never the ID token). Each render asks once what
// the user may do and why (GET /todos?permissions) and says so beside every button; the
// buttons stay pressable, because the API decides every change itself, and every refusal
// from the API is shown as it came.
import { accessToken, completeSignIn, refresh, signIn, signOut } from './sign-in.js';

const names = new Map();
const $ = (id) => document.getElementById(id);

function show(message, ok = false) {
  $('status').textContent = message;
  $('status').className = ok ? 'ok' : '';
}

/** Shows who is signed in, or nobody: the only place the signed-in state reaches the page. */
function showSignedIn(email) {
  $('who').textContent = email ? `signed in as ${email}` : 'not signed in';
  $('sign-in').hidden = Boolean(email);
  $('sign-out').hidden = !email;
  $('add').hidden = !email;
  if (!email) $('todos').replaceChildren();
}

async function call(method, path, body) {
  return fetch(path, {
    method,
    headers: { authorization: `Bearer ${accessToken()}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
}

async function api(method, path, body) {
  let res = await call(method, path, body);
  // An expired access token: one refresh (the refresh token rotates), then one retry.
  if (res.status === 401 && (await refresh())) res = await call(method, path, body);
  if (res.status === 204) return null;
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`${res.status} ${data.message || data.error_description || data.error || ''}`);
  return data;
}

async function ownerName(id) {
  if (!names.has(id)) names.set(id, api('GET', `/users/${encodeURIComponent(id)}`).then((u) => u.name, () => id));
  return names.get(id);
}

/** Marks a control the policy would refuse, and says why: the page's hint, never the enforcement. */
function hint(element, permission) {
  if (!permission) return;
  element.classList.toggle('denied', !permission.allowed);
  if (permission.why) element.title = `${permission.allowed ? 'allowed' : 'not allowed'}: ${permission.why}`;
}

async function render() {
  const { todos, permissions } = await api('GET', '/todos?permissions');
  const list = $('todos');
  list.replaceChildren();
  hint($('add-button'), permissions.can_create_todo);
  $('add-why').textContent = permissions.can_create_todo.allowed ? '' : `You may not add todos (${permissions.can_create_todo.why ?? 'denied'}).`;
  for (const todo of todos) {
    const li = document.createElement('li');
    li.className = todo.completed ? 'done' : '';
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = todo.completed;
    box.setAttribute('aria-label', `done: ${todo.title}`);
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
    const mine = permissions.todos[todo.id];
    hint(box, mine?.can_update_todo);
    hint(del, mine?.can_delete_todo);
    const why = document.createElement('small');
    why.className = 'why';
    why.textContent = [mine && !mine.can_update_todo.allowed ? 'may not update' : '', mine && !mine.can_delete_todo.allowed ? 'may not delete' : ''].filter(Boolean).join(', ');
    if (mine) why.title = `update: ${mine.can_update_todo.why ?? '?'}\ndelete: ${mine.can_delete_todo.why ?? '?'}`;
    li.append(box, title, owner, del, why);
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

$('sign-in').onclick = () => signIn().catch((err) => show(err.message));
// The page's HTML says "loading…" with Sign in disabled: a click before the IdP's discovery and
// these handlers are in place would do nothing, and the page would look signed out.
$('sign-in').disabled = false;
$('sign-out').onclick = () => signOut().catch((err) => show(err.message));
$('add').onsubmit = (event) => {
  event.preventDefault();
  const title = $('title').value;
  $('title').value = '';
  act(() => api('POST', '/todos', { title }), 'added');
};

showSignedIn(null);
try {
  const email = await completeSignIn();
  if (email) {
    showSignedIn(email);
    await act(async () => undefined, 'signed in');
  }
} catch (err) {
  showSignedIn(null);
  show(`sign-in failed: ${err.error_description || err.message}`);
}
