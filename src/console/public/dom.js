// Small DOM helpers shared by the console's views: text only (never innerHTML), so nothing
// the API returns is ever parsed as markup.

/** Creates `<tag>` with properties (`class`, `text`, attributes) and children. */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = value;
    else if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node[key] = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  node.append(...children);
  return node;
}

/** A "Copy" button that writes `text()` to the clipboard and says so; `label` names what it copies for screen readers. */
export function copyButton(text, label) {
  const button = el('button', { type: 'button', class: 'copy', 'aria-label': `Copy ${label}`, text: 'Copy' });
  button.onclick = async () => {
    try {
      await navigator.clipboard.writeText(text());
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Copy failed';
    }
    setTimeout(() => (button.textContent = 'Copy'), 2000);
  };
  return button;
}

/** The signed-in user (`sub`, name, e-mail from the ID token), set once signed in. */
let signedIn = null;

/** Remembers who is signed in: where a tenant's directory has no name for them, they are "you". */
export function setSignedInUser(user) {
  signedIn = user;
}

/**
 * An id shown by what it names: `name` and `detail` (an e-mail, say), with the id in the title
 * and behind a copy button (`what` says what kind of id, for both). Without a name the id
 * itself is shown; the signed-in user's own id is still "you".
 */
export function named(id, name, detail, what) {
  const copy = copyButton(() => id, `${what} ${id}`);
  const label = name ?? (signedIn && id === signedIn.id ? `${signedIn.name ?? signedIn.email ?? 'you'} (you)` : null);
  if (!label) return el('span', { class: 'named', 'data-id': id }, el('code', { text: id }), copy);
  return el(
    'span',
    { class: 'named', title: `${what}: ${id}`, 'data-id': id },
    el('span', { class: 'name', text: label }),
    detail ? el('span', { class: 'detail', text: detail }) : '',
    copy,
  );
}

/**
 * Marks each body cell of `table` with its column's heading (`data-label`), which a narrow
 * screen shows beside the value when the table stacks its rows (style.css); a cell that spans
 * columns (a row's opened detail) has no one heading and gets none. Call it again after adding rows.
 */
export function labelCells(table) {
  table.classList.add('stack');
  const headings = [...table.querySelectorAll('thead th')].map((th) => th.textContent);
  for (const row of table.querySelectorAll('tbody tr')) {
    [...row.children].forEach((cell, i) => {
      if (headings[i] && !cell.hasAttribute('colspan')) cell.dataset.label = headings[i];
    });
  }
  return table;
}

/** Shows a message in the page's status line (role=status, read out by screen readers). */
export function announce(message, ok = false) {
  const status = document.getElementById('status');
  status.textContent = message;
  status.className = ok ? 'ok' : 'error';
}

/**
 * Runs one change made from a view — `work` resolves to the message that says it happened —
 * then `reload()`, and shows how it ended in `section`'s `.result` line: that message, or the
 * refusal as it came (also when the reload fails).
 */
export async function reportChange(section, work, reload) {
  let message;
  let ok = true;
  try {
    message = await work();
    await reload();
  } catch (err) {
    message = err.message;
    ok = false;
  }
  const out = section.querySelector('.result');
  out.textContent = message;
  out.className = ok ? 'result ok' : 'result error';
}

/** Local date and time of an ISO timestamp, or '—'. */
export function when(iso) {
  return iso ? new Date(iso).toLocaleString() : '—';
}

/** Whether the role may act (send commands, rotate keys): admins and owners. */
export function canAct(role) {
  return role === 'admin' || role === 'owner';
}

/**
 * What a view's `show(account)` does: "loading…" in `body`, then `load()`; a failure shows
 * `could not load the <what>: <reason>` unless `stillShown()` says another account has been
 * shown since (a late answer must not overwrite the newer view).
 */
export async function loadInto(body, what, load, stillShown) {
  body.replaceChildren(el('p', { class: 'meta', text: 'loading…' }));
  try {
    await load();
  } catch (err) {
    if (stillShown()) body.replaceChildren(el('p', { class: 'error', text: `could not load the ${what}: ${err.message}` }));
  }
}
