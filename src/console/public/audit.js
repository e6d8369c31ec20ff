// The Audit log view: every change made through the console (commands, key rotations, member,
// connection and directory changes), with the tenant's admin key (the admin API, and so
// `npm run policy` and `npm run directory`) or by `npm run tenants` on the control-plane host,
// newest first, 100 a page; "Load older" asks for
// the page before the oldest entry shown. Who and what are shown by name where the API gives
// one (a directory user's name and e-mail, a connection's label), the id on hover and behind
// a copy button.
import { api, tenantPath } from './api.js';
import { el, labelCells, named, when } from './dom.js';

/** Who made the change: a console user by name, the tenant's admin key, or the tenants CLI. */
function actorOf(e) {
  if (e.actor_kind === 'cli') {
    return el('span', { class: 'named', title: 'npm run tenants, run on the control-plane host' }, el('span', { class: 'name', text: 'CLI' }), el('span', { class: 'detail', text: 'npm run tenants' }));
  }
  if (e.actor_kind === 'admin_key') {
    return el('span', { class: 'named', title: "the tenant's admin key: the admin API, npm run policy or npm run directory" }, el('span', { class: 'name', text: 'admin key' }), el('span', { class: 'detail', text: 'admin API, npm run policy or directory' }));
  }
  return named(e.actor, e.actor_name, e.actor_email, 'user id');
}

/** What the change was made to: a user or connection by name, else its id (an instance, a key, an image). */
function targetOf(e) {
  if (e.target === null) return '—';
  if (e.target_name !== null) return named(e.target, e.target_name, e.target_email, e.action.startsWith('connection.') ? 'connection id' : 'user id');
  return el('code', { text: e.target });
}

/** The view in `section`: `show(account)` loads the newest entries, `hide()` stops showing them. */
export function auditView(section) {
  const table = section.querySelector('table');
  const rows = section.querySelector('tbody');
  const older = section.querySelector('.older');
  const meta = section.querySelector('.meta');
  let account = null;

  async function load(before) {
    const shown = account;
    try {
      const { entries } = await api('GET', tenantPath(shown, `/audit${before ? `?before=${before}` : ''}`));
      if (shown !== account) return;
      for (const e of entries) {
        rows.append(
          el(
            'tr',
            { 'data-entry': e.id },
            el('td', { text: when(e.at) }),
            el('td', { 'data-col': 'who' }, actorOf(e)),
            el('td', { 'data-col': 'action', text: e.action }),
            el('td', { 'data-col': 'target' }, targetOf(e)),
            el('td', { 'data-col': 'outcome', class: e.outcome === 'ok' ? 'ok' : 'error', text: e.outcome }),
          ),
        );
      }
      labelCells(table);
      older.hidden = entries.length < 100;
      older.onclick = () => load(entries.at(-1).id);
      meta.textContent = `${rows.children.length} entries shown`;
    } catch (err) {
      if (shown === account) meta.textContent = `could not load the audit log: ${err.message}`;
    }
  }

  const view = {
    show(next) {
      account = next;
      rows.replaceChildren();
      older.hidden = true;
      meta.textContent = 'loading…';
      return load(undefined);
    },
    hide() {
      account = null;
    },
  };
  section.querySelector('.reload').onclick = () => account && view.show(account);
  return view;
}
