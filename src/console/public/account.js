// The Account settings view (personal account) or Organization management view
// (organization): the tenant id, name and kind, your role, and an organization's members (by
// name and e-mail from the tenant's directory, the user id on hover and behind a copy button).
// Owners and admins change roles, add and remove members (PUT/DELETE …/members/:userId; only
// owners touch the owner role); the server checks every change (it keeps at least one owner),
// and refusals are shown as they came.
import { api, tenantPath } from './api.js';
import { canAct as canManage, copyButton, el, labelCells, loadInto, named, reportChange, when } from './dom.js';

const ROLES = ['owner', 'admin', 'viewer'];

/** The view's title for an account kind, also the tab's label. */
export function accountTitle(kind) {
  return kind === 'organization' ? 'Organization management' : 'Account settings';
}

/** A member as messages and labels name them: name and e-mail when the directory has them, else the user id. */
const who = (m) => (m.name ? `${m.name} (${m.email})` : m.user_id);

/** The roles `callerRole` may give: owners any, admins admin or viewer (the server checks the same). */
function grantable(callerRole) {
  return callerRole === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner');
}

function roleSelect(id, label, value, roles) {
  const select = el('select', { id, 'aria-label': label }, ...roles.map((r) => el('option', { value: r, text: r })));
  select.value = value;
  return select;
}

/** The view in `section`: `show(account)` loads that tenant, `hide()` stops showing it. */
export function accountView(section) {
  const body = section.querySelector('.body');
  const title = section.querySelector('h2');
  let account = null;

  /** Runs one member change, reloads the tenant, and says how it ended. */
  function change(action, done) {
    return reportChange(section, async () => {
      await action();
      return done;
    }, () => load(account));
  }

  function membersTable(tenant) {
    const manager = canManage(tenant.role);
    const rows = tenant.members.map((m, i) => {
      const cells = [el('td', {}, named(m.user_id, m.name, m.email, 'user id')), el('td', { text: m.role }), el('td', { text: when(m.since) })];
      // Admins manage admins and viewers; only owners touch an owner.
      if (manager && (tenant.role === 'owner' || m.role !== 'owner')) {
        const select = roleSelect(`member-role-${i}`, `role of ${who(m)}`, m.role, grantable(tenant.role));
        const save = el('button', { type: 'button', text: 'Change role' });
        save.onclick = () => change(() => api('PUT', tenantPath(account, `/members/${encodeURIComponent(m.user_id)}`), { role: select.value }), `${who(m)} is now ${select.value}`);
        const remove = el('button', { type: 'button', text: 'Remove', 'aria-label': `Remove ${who(m)}` });
        remove.onclick = () => change(() => api('DELETE', tenantPath(account, `/members/${encodeURIComponent(m.user_id)}`)), `${who(m)} removed`);
        cells.push(el('td', { class: 'actions' }, select, save, remove));
      } else if (manager) {
        cells.push(el('td', { class: 'hint', text: 'owners only' }));
      }
      return el('tr', { 'data-member': m.user_id }, ...cells);
    });
    const head = ['Member', 'Role', 'Member since', ...(manager ? ['Manage'] : [])].map((h) => el('th', { scope: 'col', text: h }));
    const table = el('table', {}, el('caption', { text: `${tenant.members.length} members` }), el('thead', {}, el('tr', {}, ...head)), el('tbody', {}, ...rows));
    return el('div', { class: 'scroll' }, labelCells(table));
  }

  function addForm(callerRole) {
    const user = el('input', { id: 'new-member', required: true, maxlength: 128, autocomplete: 'off' });
    const role = roleSelect('new-member-role', 'role of the new member', 'viewer', grantable(callerRole));
    const form = el(
      'form',
      { class: 'inline' },
      el('label', { for: 'new-member', text: 'User id (the IdP’s sub)' }),
      user,
      role,
      el('button', { type: 'submit', text: 'Add member' }),
    );
    form.onsubmit = (event) => {
      event.preventDefault();
      const id = user.value.trim();
      change(() => api('PUT', tenantPath(account, `/members/${encodeURIComponent(id)}`), { role: role.value }), `${id} added as ${role.value}`);
    };
    return form;
  }

  async function load(next) {
    const tenant = await api('GET', tenantPath(next, ''));
    if (next !== account) return;
    const parts = [
      el(
        'dl',
        { class: 'facts' },
        el('dt', { text: 'Tenant id' }),
        el('dd', {}, el('code', { id: 'tenant-id', text: tenant.id }), copyButton(() => tenant.id, `tenant id ${tenant.id}`)),
        el('dt', { text: 'Name' }),
        el('dd', { text: tenant.name }),
        el('dt', { text: 'Kind' }),
        el('dd', { text: tenant.kind === 'organization' ? 'organization' : 'personal account' }),
        el('dt', { text: 'Your role' }),
        el('dd', { text: tenant.role }),
      ),
    ];
    if (tenant.members) {
      parts.push(el('h3', { text: 'Members' }), membersTable(tenant));
      if (canManage(tenant.role)) parts.push(addForm(tenant.role));
      else parts.push(el('p', { class: 'hint', text: 'Owners and admins manage members.' }));
    }
    parts.push(el('p', { class: 'result', role: 'status' }));
    body.replaceChildren(...parts);
  }

  return {
    async show(next) {
      account = next;
      title.textContent = accountTitle(next.kind);
      await loadInto(body, 'account', () => load(next), () => next === account);
    },
    hide() {
      account = null;
    },
  };
}
