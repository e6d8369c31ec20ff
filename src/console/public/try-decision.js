// "Try a decision" on the Decisions view: choose a user (or type one), an action, a resource and
// an edge; the edge decides over the relay from its current image and directory and answers with
// the decision and why — and records nothing (POST …/decisions/try, docs/reference/api.md,
// "Decision records").
import { api, tenantPath } from './api.js';
import { el } from './dom.js';

/** The panel in `section` (`.try`): `show(account)` fills the user and edge lists. */
export function tryDecisionPanel(section) {
  const form = section.querySelector('form.try-form');
  const users = section.querySelector('datalist');
  const edges = form.elements.instance;
  const out = section.querySelector('.try-result');
  let account = null;

  async function fill(shown) {
    const [directory, edgesPage, { connections }] = await Promise.all([
      api('GET', tenantPath(shown, '/directory')),
      api('GET', tenantPath(shown, '/authorizers?page_size=100')),
      api('GET', tenantPath(shown, '/connections')),
    ]);
    if (shown !== account) return;
    users.replaceChildren(...directory.users.map((u) => el('option', { value: u.email, text: u.name })));
    // Each edge by what its connection serves, as its card is headed (the host name without a label).
    const labels = new Map(connections.filter((c) => c.label).map((c) => [c.connection_id, c.label]));
    const connected = edgesPage.result.filter((r) => r.info.connected);
    edges.replaceChildren(...connected.map((r) => el('option', { value: r.id, text: `${labels.get(r.info.connection_id) ?? r.info.hostname ?? r.id} · ${r.info.policy_name ?? ''}` })));
  }

  form.onsubmit = async (event) => {
    event.preventDefault();
    if (!account) return;
    const f = form.elements;
    const body = { instance_id: f.instance.value, principal: f.principal.value.trim(), action: f.action.value.trim(), resource: { type: f.type.value.trim(), id: f.id.value.trim() } };
    out.className = 'try-result';
    out.textContent = 'asking the edge…';
    try {
      const answer = await api('POST', tenantPath(account, '/decisions/try'), body);
      const why = answer.reasons.map((r) => (r.policy === null ? r.comment : `${r.comment || '(no comment)'} — ${r.policy}`)).join('; ');
      out.className = `try-result ${answer.decision === 'allow' ? 'ok' : 'error'}`;
      out.dataset.decision = answer.decision;
      out.textContent = `${answer.decision}: ${why} (image ${answer.policy_digest.slice(7, 19)}…, directory revision ${answer.directory_revision}; not recorded)`;
    } catch (err) {
      out.className = 'try-result error';
      out.dataset.decision = '';
      out.textContent = `could not try it: ${err.message}`;
    }
  };

  return {
    show(next) {
      account = next;
      out.textContent = '';
      fill(next).catch((err) => {
        if (next === account) out.textContent = `could not load users and edges: ${err.message}`;
      });
    },
    hide() {
      account = null;
    },
  };
}
