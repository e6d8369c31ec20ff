// The Authorizers view: every registered edge of the tenant as the relay lists it, with its
// drift spelled out, and the two relay commands (docs/service-interface.md §1 item 3) for
// admins and owners. Each card is headed by its connection's label (what it serves: the
// sidecar, an app's embedded edge), the host name only where the connection has none. Polls the list every POLL_SECONDS while shown, and at once
// after a command the edge confirmed (its card shows the state it confirmed, not the last
// poll's); cards are kept per instance id and updated in place, so a poll never steals focus
// or a command's result. Admins also get "Sync all" for each command: one broadcast to every
// connected edge of the tenant (docs/reference/api.md, "Broadcast"), its counts shown under the
// buttons, with each edge that did not confirm and why.
import { api, tenantPath } from './api.js';
import { canAct, copyButton, el, when } from './dom.js';

/** How often the list is fetched again while the view is shown. */
export const POLL_SECONDS = 5;
/** Registrations fetched per page, and pages followed at most. */
const PAGE_SIZE = 1000;
const MAX_PAGES = 10;

const COMMANDS = [
  { command: 'discovery', label: 'Sync policy instance' },
  { command: 'sync_edge_directory', label: 'Sync edge directory' },
];

const SYNC_ALL = [
  { command: 'discovery', label: 'Sync all policies' },
  { command: 'sync_edge_directory', label: 'Sync all directories' },
];

const short = (digest) => (digest ? `${digest.slice(0, 19)}…` : 'none');

function policyDrift(info) {
  if (!info.policy_drift) return 'policy up to date';
  return `policy drift: runs ${short(info.policy_digest)}, latest is ${short(info.latest_policy_digest)}`;
}

function directoryDrift(info) {
  if (info.directory_lag <= 0) return 'directory up to date';
  const n = info.directory_lag;
  return `directory ${n} revision${n === 1 ? '' : 's'} behind (central revision ${info.central_directory_revision})`;
}

/**
 * The card's fields: label, value (of the registration and the tenant's connection labels by
 * id), whether it gets a copy button, and whether it is prose rather than an identifier.
 */
const FIELDS = [
  { key: 'instance', label: 'Instance id', value: (r) => r.id, copy: true },
  { key: 'connection', label: 'Connection id', value: (r) => r.info.connection_id, copy: true },
  { key: 'host', label: 'Host name', value: (r) => r.info.hostname },
  { key: 'version', label: 'Version', value: (r) => r.info.version },
  { key: 'policy', label: 'Policy', value: (r) => r.info.policy_name },
  { key: 'digest', label: 'Policy digest', value: (r) => r.info.policy_digest ?? 'none yet' },
  { key: 'revision', label: 'Directory revision', value: (r) => String(r.info.directory_revision) },
  { key: 'connected', label: 'Connected since', value: (r) => (r.info.connected ? when(r.info.connected_at) : 'not connected') },
  { key: 'seen', label: 'Last seen', value: (r) => when(r.info.last_seen) },
  { key: 'drift', label: 'Drift', value: (r) => `${policyDrift(r.info)}; ${directoryDrift(r.info)}`, prose: true },
];

async function allRegistrations(account) {
  const result = [];
  let token = '';
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const query = new URLSearchParams({ page_size: String(PAGE_SIZE), ...(token ? { page_token: token } : {}) });
    const body = await api('GET', tenantPath(account, `/authorizers?${query}`));
    result.push(...body.result);
    token = body.next_page_token ?? '';
    if (!token) return { result, truncated: false };
  }
  return { result, truncated: true };
}

/** The tenant's connection labels by connection id (a connection without one is absent). */
async function connectionLabels(account) {
  const { connections } = await api('GET', tenantPath(account, '/connections'));
  return new Map(connections.filter((c) => c.label).map((c) => [c.connection_id, c.label]));
}

/**
 * Sends one command and shows the edge's confirmation or the documented refusal in the card;
 * once confirmed, `refresh()` fetches the list again so the card shows what the edge now runs.
 */
async function send(account, card, command, label, button, refresh) {
  const out = card.querySelector('.result');
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  out.className = 'result';
  out.textContent = `${label}: waiting for the edge…`;
  try {
    await api('POST', tenantPath(account, `/authorizers/${encodeURIComponent(card.dataset.instance)}/commands`), { command });
    out.textContent = `${label}: confirmed by the edge at ${new Date().toLocaleTimeString()}`;
    out.classList.add('ok');
    refresh();
  } catch (err) {
    out.textContent = `${label} failed: ${err.message}`;
    out.classList.add('error');
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

function newCard(account, registration, labels, refresh) {
  const id = registration.id;
  const heading = el('h3', { id: `edge-${id}` });
  const state = el('span', { class: 'badge' });
  const list = el('dl');
  for (const field of FIELDS) {
    const value = el(field.prose ? 'span' : 'code', { 'data-field': field.key });
    const dd = el('dd', {}, value);
    if (field.copy) dd.append(copyButton(() => value.textContent, `${field.label.toLowerCase()} ${field.value(registration, labels)}`));
    list.append(el('dt', { text: field.label }), dd);
  }
  const card = el('article', { class: 'card', 'data-instance': id, 'aria-labelledby': `edge-${id}` }, el('header', {}, heading, state), list);
  if (canAct(account.role)) {
    const actions = el('div', { class: 'actions' });
    for (const { command, label } of COMMANDS) {
      const button = el('button', { type: 'button', 'data-command': command, text: label });
      button.onclick = () => send(account, card, command, label, button, refresh);
      actions.append(button);
    }
    card.append(actions);
  }
  card.append(el('p', { class: 'result', role: 'status' }));
  return card;
}

function fill(card, registration, labels) {
  const { info } = registration;
  // Named for what it is — its connection's label (`sidecar`, `RBAC app (embedded edge)`) —
  // not for the machine it runs on, which every edge of one host shares; the host name without a label.
  const label = labels.get(info.connection_id);
  const heading = card.querySelector('h3');
  heading.textContent = label ?? info.hostname;
  heading.dataset.named = label === undefined ? 'host' : 'label';
  const badge = card.querySelector('.badge');
  badge.textContent = info.connected ? 'connected' : 'disconnected';
  badge.dataset.state = info.connected ? 'up' : 'down';
  card.dataset.drift = String(info.policy_drift || info.directory_lag > 0);
  for (const field of FIELDS) card.querySelector(`[data-field="${field.key}"]`).textContent = field.value(registration, labels);
}

/** "3 of 4 confirmed, 1 failed (edge-7: edge_timeout), 1 not connected". */
function describeBroadcast({ sent, confirmed, failed, not_connected: notConnected }) {
  const parts = [`${confirmed} of ${sent} edge${sent === 1 ? '' : 's'} confirmed`];
  if (failed.length > 0) parts.push(`${failed.length} failed (${failed.map((f) => `${f.id}: ${f.code}`).join(', ')})`);
  parts.push(`${notConnected} not connected`);
  return parts.join(', ');
}

/**
 * The "Sync all" buttons: one broadcast each, the buttons disabled while it runs, the
 * answer (or the documented refusal) in the status line below; then the cards refresh.
 */
function syncAllBar(getAccount, refresh) {
  const out = el('p', { class: 'result', role: 'status' });
  const buttons = SYNC_ALL.map(({ command, label }) => {
    const button = el('button', { type: 'button', 'data-broadcast': command, text: label });
    button.onclick = async () => {
      const account = getAccount();
      if (!account) return;
      for (const b of buttons) b.disabled = true;
      button.setAttribute('aria-busy', 'true');
      out.className = 'result';
      out.textContent = `${label}: waiting for every edge…`;
      try {
        const { result } = await api('POST', tenantPath(account, '/authorizers/commands'), { command });
        out.textContent = `${label}: ${describeBroadcast(result)} at ${new Date().toLocaleTimeString()}`;
        out.classList.add(result.failed.length === 0 ? 'ok' : 'error');
        refresh();
      } catch (err) {
        out.textContent = `${label} failed: ${err.message}`;
        out.classList.add('error');
      } finally {
        for (const b of buttons) b.disabled = false;
        button.removeAttribute('aria-busy');
      }
    };
    return button;
  });
  return el('div', { class: 'sync-all' }, el('div', { class: 'actions' }, ...buttons), out);
}

/** The view in `section`: `show(account)` starts polling that tenant's edges, `hide()` stops. */
export function authorizersView(section) {
  const list = section.querySelector('.cards');
  const meta = section.querySelector('.meta');
  let timer = null;
  let account = null;
  // One fetch at a time: asked for while one runs (a confirmed command), it runs once more after.
  let running = null;
  let again = false;
  const bar = syncAllBar(() => account, () => refresh());
  section.querySelector('.meta').before(bar);

  /** Fetches the list once and updates the cards (unless another account is shown by then). */
  async function poll() {
    const shown = account;
    try {
      const [{ result, truncated }, labels] = await Promise.all([allRegistrations(shown), connectionLabels(shown)]);
      if (shown !== account) return;
      const cards = new Map([...list.children].map((c) => [c.dataset.instance, c]));
      const ordered = result.map((r) => {
        const card = cards.get(r.id) ?? newCard(shown, r, labels, refresh);
        cards.delete(r.id);
        fill(card, r, labels);
        return card;
      });
      for (const gone of cards.values()) gone.remove();
      ordered.forEach((card, i) => list.children[i] !== card && list.insertBefore(card, list.children[i] ?? null));
      const count = `${result.length} registered edge${result.length === 1 ? '' : 's'}${truncated ? ` (the first ${result.length} only)` : ''}`;
      meta.textContent = `${count} · updated ${new Date().toLocaleTimeString()} · refreshes every ${POLL_SECONDS} s`;
    } catch (err) {
      if (shown === account) meta.textContent = `could not load the edges: ${err.message} · retrying every ${POLL_SECONDS} s`;
    }
  }

  /** Polls now (after the running poll, if one is), then again every POLL_SECONDS while shown. */
  async function refresh() {
    if (running) {
      again = true;
      return;
    }
    clearTimeout(timer);
    running = poll();
    await running;
    running = null;
    if (again) {
      again = false;
      refresh();
    } else if (account) {
      timer = setTimeout(refresh, POLL_SECONDS * 1000);
    }
  }

  return {
    show(next) {
      this.hide();
      account = next;
      list.replaceChildren();
      meta.textContent = 'loading…';
      section.querySelector('.viewer-note').hidden = canAct(next.role);
      bar.hidden = !canAct(next.role);
      bar.querySelector('.result').textContent = '';
      refresh();
    },
    hide() {
      clearTimeout(timer);
      timer = null;
      account = null;
    },
  };
}
