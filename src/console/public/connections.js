// The Connections view: the tenant id, its edge connections, the Discovery API key, and
// ready-to-paste curl commands for the relay's management API (docs/service-interface.md
// §4.2, §4.3). The key is stored only as a SHA-256 hash, so the view can say that it exists;
// "Rotate" (admins, owners; after a confirmation) shows the new key this once, kept in this
// view's memory until the view is left, and fills it into the curl commands. "Create
// connection" (admins, owners) adds an edge connection for a pushed policy, with an optional
// label saying what it serves, and shows its secret this once, with a copy button: the store
// keeps only its hash. Each connection is listed by its label (the sidecar, an app's embedded
// edge), with the policy it serves and its id.
import { api, tenantPath } from './api.js';
import { canAct, copyButton, el, loadInto } from './dom.js';

const MANAGEMENT = `${location.origin}/api/v2/management/control_plane`;

/** The two curl commands, with the real tenant id and, once known, the key and an instance id. */
function curls(tenantId, key, instanceId) {
  const headers = `-H 'content-type: application/json' -H 'service-tenant-id: ${tenantId}' -H 'Authorization: basic ${key ?? '<Discovery API key: rotate to get one>'}'`;
  const exec = (command) =>
    `curl -s -X POST ${MANAGEMENT}/exec \\\n  ${headers} \\\n  -d '${JSON.stringify({ id: instanceId ?? '<instance id>', command: { [command]: {} } })}'`;
  return [
    { label: 'list the registered edges (instance_registrations)', text: `curl -s ${MANAGEMENT}/instance_registrations \\\n  ${headers}` },
    { label: 'sync the edge directory (exec)', text: exec('sync_edge_directory') },
    { label: 'sync the policy instance (exec)', text: exec('discovery') },
  ];
}

/** One edge connection in the list: its label, the policy it serves, and its id (copyable). */
function connectionItem(c) {
  return el(
    'li',
    { 'data-connection': c.connection_id },
    c.label ? el('strong', { class: 'label', text: c.label }) : el('span', { class: 'label hint', text: 'unlabelled' }),
    el('span', { text: `serves policy ${c.policy_name}` }),
    el('code', { text: c.connection_id, title: 'connection id' }),
    copyButton(() => c.connection_id, `connection id ${c.connection_id}`),
  );
}

/** A labelled value (code) with a copy button, as a dt/dd pair. */
function copyable(label, value) {
  return [el('dt', { text: label }), el('dd', {}, el('code', { text: value }), copyButton(() => value, `${label.toLowerCase()} ${value}`))];
}

/** The view in `section`: `show(account)` loads that tenant's connections, `hide()` forgets a shown key. */
export function connectionsView(section) {
  const body = section.querySelector('.body');
  const dialog = section.querySelector('dialog');
  let account = null;
  let key = null;
  let instanceId = null;

  function renderCurls() {
    const list = section.querySelector('.curls');
    list.replaceChildren(
      ...curls(account.tenant_id, key, instanceId).map(({ label, text }) =>
        el('figure', {}, el('figcaption', { text: label }), el('pre', {}, el('code', { text })), copyButton(() => text, `curl to ${label}`)),
      ),
    );
  }

  function renderKey() {
    const box = section.querySelector('.key');
    const parts = [];
    if (key) {
      parts.push(
        el('p', { class: 'ok', text: 'New Discovery API key, shown this once (the old key no longer works):' }),
        el('p', {}, el('code', { id: 'new-discovery-key', text: key }), copyButton(() => key, 'Discovery API key')),
      );
    } else {
      parts.push(el('p', { text: 'A Discovery API key exists. It is stored only as a SHA-256 hash, so it cannot be shown; rotate it to get a key you can use.' }));
    }
    if (canAct(account.role)) {
      parts.push(el('button', { type: 'button', class: 'rotate', text: 'Rotate Discovery API key…', onclick: () => dialog.showModal() }));
    }
    box.replaceChildren(...parts);
  }

  async function rotate() {
    const shown = account;
    try {
      const { discovery_api_key: rotated } = await api('POST', tenantPath(shown, '/discovery-key/rotate'));
      if (shown !== account) return;
      key = rotated;
      renderKey();
      renderCurls();
      section.querySelector('#new-discovery-key').focus();
    } catch (err) {
      section.querySelector('.key').append(el('p', { class: 'error', role: 'alert', text: `rotation failed: ${err.message}` }));
    }
  }

  /** The form that creates a connection for one of the tenant's policies, and where its secret is shown once. */
  function createForm(policies, list) {
    // No policy chosen until one is: the first in name order is a conformance fixture
    // (authzen-certification), not what a new edge should serve by a careless click.
    const policy = el(
      'select',
      { id: 'new-connection-policy', required: true },
      el('option', { value: '', text: 'choose a policy…', disabled: true, selected: true }),
      ...policies.map((p) => el('option', { value: p.name, text: p.name })),
    );
    const label = el('input', { id: 'new-connection-label', maxlength: 64, autocomplete: 'off', placeholder: 'e.g. billing sidecar' });
    const out = el('div', { class: 'new-connection', role: 'status' });
    const form = el(
      'form',
      { class: 'inline' },
      el('label', { for: 'new-connection-policy', text: 'Policy' }),
      policy,
      el('label', { for: 'new-connection-label', text: 'Label (what it serves, optional)' }),
      label,
      el('button', { type: 'submit', text: 'Create connection' }),
    );
    form.onsubmit = async (event) => {
      event.preventDefault();
      const shown = account;
      const given = label.value.trim();
      try {
        const c = await api('POST', tenantPath(shown, '/connections'), { policy_name: policy.value, ...(given ? { label: given } : {}) });
        if (shown !== account) return;
        list.append(connectionItem(c));
        out.replaceChildren(
          el('p', { class: 'ok', text: `Connection ${c.label ? `"${c.label}" ` : ''}${c.connection_id} created. Its secret, shown this once (set EDGE_CONNECTION_ID and EDGE_CONNECTION_SECRET on the edge):` }),
          el('p', {}, el('code', { id: 'new-connection-secret', text: c.connection_secret }), copyButton(() => c.connection_secret, 'connection secret')),
        );
      } catch (err) {
        out.replaceChildren(el('p', { class: 'error', role: 'alert', text: `could not create the connection: ${err.message}` }));
      }
    };
    return [form, out];
  }

  dialog.querySelector('form').onsubmit = (event) => {
    if (event.submitter?.value === 'rotate') rotate();
  };

  /** Loads `next`'s connections, edges and policies, and shows them (unless another account was shown meanwhile). */
  async function load(next) {
    const [data, edges, { policies }] = await Promise.all([
      api('GET', tenantPath(next, '/connections')),
      api('GET', tenantPath(next, '/authorizers?page_size=1')),
      api('GET', tenantPath(next, '/policies')),
    ]);
    if (next !== account) return;
    instanceId = edges.result[0]?.id ?? null;
    const connections = el('ul', { class: 'plain' });
    for (const c of data.connections) {
      connections.append(connectionItem(c));
    }
    body.replaceChildren(
      el('dl', { class: 'facts' }, ...copyable('Tenant id', data.tenant_id)),
      el('h3', { text: 'Edge connections' }),
      connections,
      ...(data.connections.length ? [] : [el('p', { text: 'No connections yet.' })]),
      ...(canAct(next.role) && policies.length ? createForm(policies, connections) : []),
      el('h3', { text: 'Discovery API key' }),
      el('div', { class: 'key' }),
      el('h3', { text: 'Try it with curl' }),
      el('div', { class: 'curls' }),
    );
    renderKey();
    renderCurls();
  }

  return {
    async show(next) {
      account = next;
      key = null;
      instanceId = null;
      await loadInto(body, 'connections', () => load(next), () => next === account);
    },
    hide() {
      account = null;
      key = null;
    },
  };
}
