// The Directory view: the tenant's central directory (users with their roles, roles with what
// they include, resource relations) and its revision. Admins and owners grant and revoke
// roles (PUT/DELETE …/directory/users/:userId/roles/:role): the same change the admin API and
// the directory CLI make, so the edges lag one revision until they sync. Viewers get no
// controls, and the server refuses them anyway.
import { api, tenantPath } from './api.js';
import { canAct, el, labelCells, loadInto, reportChange } from './dom.js';

/** A table with a caption, header cells and rows (each an array of cells). */
function table(caption, head, rows) {
  return el(
    'div',
    { class: 'scroll' },
    labelCells(el('table', {}, el('caption', { text: caption }), el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { scope: 'col', text: h })))), el('tbody', {}, ...rows))),
  );
}

/** The view in `section`: `show(account)` loads that tenant's directory, `hide()` stops showing it. */
export function directoryView(section) {
  const body = section.querySelector('.body');
  let account = null;

  /** Runs one role change, reloads, and says how it ended (or the refusal as it came). */
  function change(method, user, role, done) {
    return reportChange(section, async () => {
      const { revision } = await api(method, tenantPath(account, `/directory/users/${encodeURIComponent(user.id)}/roles/${encodeURIComponent(role)}`));
      return `${done} (revision ${revision})`;
    }, () => load(account));
  }

  function userRow(user, i, roles, manage) {
    const held = el('td', {}, ...user.roles.flatMap((r) => [el('code', { text: r }), ' ']));
    const cells = [el('td', { text: user.name }), el('td', { text: user.email }), held];
    if (manage) {
      for (const r of user.roles) {
        held.append(el('button', { type: 'button', class: 'copy', 'aria-label': `Revoke ${r} from ${user.email}`, text: `Revoke ${r}`, onclick: () => change('DELETE', user, r, `${r} revoked from ${user.email}`) }), ' ');
      }
      const missing = roles.filter((r) => !user.roles.includes(r.id));
      const select = el('select', { id: `grant-role-${i}`, 'aria-label': `role to grant ${user.email}` }, ...missing.map((r) => el('option', { value: r.id, text: r.id })));
      const grant = el('button', { type: 'button', text: 'Grant', 'aria-label': `Grant the selected role to ${user.email}` });
      grant.onclick = () => change('PUT', user, select.value, `${select.value} granted to ${user.email}`);
      cells.push(el('td', { class: 'actions' }, ...(missing.length ? [select, grant] : [el('span', { class: 'hint', text: 'holds every role' })])));
    }
    return el('tr', { 'data-user': user.email }, ...cells);
  }

  async function load(next) {
    const directory = await api('GET', tenantPath(next, '/directory'));
    if (next !== account) return;
    const manage = canAct(next.role);
    const name = (id) => directory.users.find((u) => u.id === id)?.email ?? id;
    body.replaceChildren(
      el('p', { class: 'meta' }, 'Revision ', el('strong', { id: 'directory-revision', text: String(directory.revision) })),
      manage ? el('p', { class: 'hint', text: 'A grant or revoke is the next revision; each edge applies it at its next sync (Authorizers: Sync edge directory).' }) : el('p', { class: 'hint', text: 'You are a viewer of this account: you see the directory but cannot change it.' }),
      el('p', { class: 'result', role: 'status' }),
      el('h3', { text: 'Users' }),
      table(`${directory.users.length} users`, ['Name', 'E-mail', 'Roles', ...(manage ? ['Grant'] : [])], directory.users.map((u, i) => userRow(u, i, directory.roles, manage))),
      el('h3', { text: 'Roles' }),
      table(`${directory.roles.length} roles`, ['Role', 'Includes'], directory.roles.map((r) => el('tr', {}, el('td', {}, el('code', { text: r.id })), el('td', { text: r.includes.join(', ') || '—' })))),
      el('h3', { text: 'Resource relations' }),
      table(
        `${directory.resources.length} resources`,
        ['Resource', 'Owner', 'Writer', 'Reader'],
        directory.resources.map((r) => el('tr', {}, el('td', {}, el('code', { text: r.id })), ...['owner', 'writer', 'reader'].map((rel) => el('td', { text: r.relations[rel].map(name).join(', ') || '—' })))),
      ),
    );
  }

  return {
    async show(next) {
      account = next;
      await loadInto(body, 'directory', () => load(next), () => next === account);
    },
    hide() {
      account = null;
    },
  };
}
