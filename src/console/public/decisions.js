// The Decisions view: what the tenant's edges decided — who, what, the answer, why, and the
// image and directory revision it was made with — newest first, live. It loads the latest page
// (GET …/decisions) and then follows …/decisions/stream, server-sent events read with fetch so
// the access token goes in a header; a dropped stream reconnects after a second and resumes
// after the last record it showed (docs/reference/api.md, "Decision records"). A row opens, right
// under it, the policy text with the determining policy highlighted.
import { api, tenantPath } from './api.js';
import { el, labelCells } from './dom.js';
import { accessToken, refresh } from './sign-in.js';
import { tryDecisionPanel } from './try-decision.js';

/** Rows kept on the page; older ones leave as new ones come. */
const MAX_ROWS = 200;
const FILTERS = ['principal', 'action', 'resource', 'decision', 'instance'];

function query(filters, extra = {}) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...filters, ...extra })) if (v) params.set(k, String(v));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The reasons in one line: each comment, with the policy id after it. */
function whyText(d) {
  return d.reasons.map((r) => (r.policy === null ? r.comment : `${r.comment || '(no comment)'} — ${r.policy}`)).join('; ');
}

function row(d, onOpen) {
  const tr = el(
    'tr',
    { 'data-decision': d.id, 'data-request': d.request_id, tabindex: '0', class: 'decision' },
    el('td', { text: new Date(d.time).toLocaleTimeString() }),
    el('td', { 'data-col': 'who', text: d.principal.email ?? d.principal.id, title: `user id ${d.principal.id}` }),
    el('td', { 'data-col': 'what' }, el('code', { text: `${d.action} ${d.resource.type}:${d.resource.id}` })),
    el('td', { 'data-col': 'result', class: d.decision === 'allow' ? 'ok' : 'error', text: d.decision }),
    el('td', { 'data-col': 'why', text: whyText(d) }),
    el('td', { 'data-col': 'state' }, el('code', { text: `${d.policy_digest.slice(7, 19)}…`, title: d.policy_digest }), ` rev ${d.directory_revision}`),
    el('td', { 'data-col': 'edge', text: d.app, title: `instance ${d.instance_id}` }),
  );
  tr.setAttribute('aria-expanded', 'false');
  tr.onclick = () => onOpen(d, tr);
  tr.onkeydown = (event) => event.key === 'Enter' && onOpen(d, tr);
  return tr;
}

/** Reads server-sent events from a fetch body: calls `onEvent(type, id, data)` per event. */
async function readEvents(body, onEvent) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let type = 'message';
      let id;
      const data = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) type = line.slice(7);
        else if (line.startsWith('id: ')) id = line.slice(4);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      if (data.length > 0) onEvent(type, id, data.join('\n'));
    }
  }
}

/** The policy files of the image `digest`: the tenant's policy that holds it (the app's name first), then its files. */
async function imageFiles(account, d) {
  const { policies } = await api('GET', tenantPath(account, '/policies'));
  const names = policies.map((p) => p.name).sort((a, b) => (a === d.app ? -1 : b === d.app ? 1 : 0));
  for (const name of names) {
    const versions = await api('GET', tenantPath(account, `/policies/${encodeURIComponent(name)}`));
    if (!versions.images.some((image) => image.digest === d.policy_digest)) continue;
    return (await api('GET', tenantPath(account, `/policies/${encodeURIComponent(name)}/images/${encodeURIComponent(d.policy_digest)}`))).files;
  }
  return null;
}

/** One policy file as lines, those of the determining policy (from its first line to its `;`) marked. */
function policyText(file, text, line) {
  const lines = text.split('\n');
  let last = line;
  while (last < lines.length && !lines[last - 1].trimEnd().endsWith(';')) last += 1;
  return el(
    'pre',
    { class: 'policy', 'data-file': file },
    ...lines.map((l, i) => (i + 1 >= line && i + 1 <= last ? el('mark', { 'data-line': i + 1, text: `${l}\n` }) : `${l}\n`)),
  );
}

/** The view in `section`: `show(account)` loads the latest and follows, `hide()` stops following. */
export function decisionsView(section) {
  const table = section.querySelector('table');
  const rows = section.querySelector('tbody');
  const meta = section.querySelector('.meta');
  const live = section.querySelector('.live');
  const detail = el('section', { class: 'detail', 'aria-live': 'polite', hidden: true });
  const form = section.querySelector('form.filters');
  let account = null;
  let filters = {};
  let stream = null; // the AbortController of the stream in progress
  let after = 0;
  const trying = tryDecisionPanel(section.querySelector('.try'));

  // The detail opens in a row of its own right under the decision's row (where it is read, not
  // below the whole list), one at a time: opening another moves it, opening the same one closes it.
  const detailRow = el('tr', { class: 'detail-row' }, el('td', { colspan: String(table.querySelectorAll('thead th').length) }, detail));
  let opened = null; // the decision row the detail is under

  function close() {
    opened?.setAttribute('aria-expanded', 'false');
    opened = null;
    detailRow.remove();
    detail.hidden = true;
  }

  async function open(d, tr) {
    if (opened === tr) {
      close();
      return;
    }
    close();
    opened = tr;
    tr.setAttribute('aria-expanded', 'true');
    tr.after(detailRow);
    const shown = account;
    detail.hidden = false;
    detail.replaceChildren(el('h3', { text: `Why ${d.decision}: ${d.principal.email ?? d.principal.id} ${d.action} ${d.resource.type}:${d.resource.id}` }), el('p', { class: 'meta', text: 'loading the policy…' }));
    // A row low on the screen would open its detail out of sight: bring the row to the top, the
    // detail under it. A row higher up stays where it was clicked.
    if (detailRow.getBoundingClientRect().top > window.innerHeight * 0.75) tr.scrollIntoView({ block: 'start' });
    try {
      const files = await imageFiles(shown, d);
      if (shown !== account || opened !== tr) return;
      const parts = [
        el('p', { text: whyText(d) }),
        el('p', { class: 'meta' }, 'image ', el('code', { text: d.policy_digest }), `, directory revision ${d.directory_revision}, request `, el('code', { text: d.request_id }), `, decided by ${d.app} in ${d.latency_us} µs`),
      ];
      for (const reason of d.reasons.filter((r) => r.policy !== null)) {
        const match = /^(.+?):(\d+)(?::\d+)?$/.exec(reason.policy);
        const text = match && files ? files[match[1]] : undefined;
        parts.push(el('h4', { text: reason.policy }));
        parts.push(text === undefined ? el('p', { class: 'meta', text: 'the image is no longer stored' }) : policyText(match[1], text, Number(match[2])));
      }
      detail.replaceChildren(detail.firstChild, ...parts);
    } catch (err) {
      if (shown === account && opened === tr) detail.replaceChildren(detail.firstChild, el('p', { class: 'error', text: `could not load the policy: ${err.message}` }));
    }
  }

  function add(d, newest) {
    if (d.id <= after && newest) return;
    const tr = row(d, open);
    if (newest) rows.prepend(tr);
    else rows.append(tr);
    const shownRows = rows.querySelectorAll('tr.decision');
    if (shownRows.length > MAX_ROWS) {
      const oldest = shownRows[shownRows.length - 1];
      if (oldest === opened) close();
      oldest.remove();
    }
    labelCells(table);
    meta.textContent = `${rows.querySelectorAll('tr.decision').length} decisions shown`;
  }

  /** Follows the stream until `controller` aborts; reconnects a second after it ends or fails. */
  async function follow(shown, controller) {
    while (!controller.signal.aborted && shown === account) {
      try {
        let res = await fetch(`/console/api${tenantPath(shown, '/decisions/stream')}${query(filters, { after })}`, {
          headers: { authorization: `Bearer ${accessToken()}`, accept: 'text/event-stream' },
          signal: controller.signal,
        });
        if (res.status === 401 && (await refresh())) continue;
        if (!res.ok) throw new Error(`${res.status}`);
        live.textContent = 'live';
        live.dataset.state = 'live';
        await readEvents(res.body, (type, _id, data) => {
          if (type !== 'decision' || shown !== account) return;
          const d = JSON.parse(data);
          add(d, true);
          after = Math.max(after, d.id);
        });
      } catch (err) {
        if (controller.signal.aborted) return;
      }
      if (controller.signal.aborted || shown !== account) return;
      live.textContent = 'reconnecting…';
      live.dataset.state = 'reconnecting';
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  function stop() {
    stream?.abort();
    stream = null;
  }

  const view = {
    async show(next) {
      stop();
      account = next;
      trying.show(next);
      const shown = next;
      close();
      rows.replaceChildren();
      after = 0;
      meta.textContent = 'loading…';
      live.textContent = 'connecting…';
      live.dataset.state = 'reconnecting';
      try {
        const page = await api('GET', tenantPath(shown, `/decisions${query(filters, { limit: 50 })}`));
        if (shown !== account) return;
        for (const d of page.decisions) add(d, false);
        after = page.decisions[0]?.id ?? 0;
        meta.textContent = `${rows.querySelectorAll('tr.decision').length} decisions shown`;
      } catch (err) {
        if (shown === account) meta.textContent = `could not load the decisions: ${err.message}`;
        return;
      }
      stream = new AbortController();
      void follow(shown, stream);
    },
    hide() {
      stop();
      trying.hide();
      account = null;
    },
  };
  form.onsubmit = (event) => {
    event.preventDefault();
    filters = Object.fromEntries(FILTERS.map((name) => [name, form.elements[name].value.trim()]).filter(([, v]) => v));
    if (account) void view.show(account);
  };
  return view;
}
