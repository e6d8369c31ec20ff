// The Audit log view: every change made through the console (commands, key rotations,
// member changes), newest first, 100 a page; "Load older" asks for the page before the
// oldest entry shown.
import { api, tenantPath } from './api.js';
import { el, when } from './dom.js';

/** The view in `section`: `show(account)` loads the newest entries, `hide()` stops showing them. */
export function auditView(section) {
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
            el('td', {}, el('code', { text: e.actor })),
            el('td', { text: e.action }),
            el('td', {}, el('code', { text: e.target ?? '—' })),
            el('td', { class: e.outcome === 'ok' ? 'ok' : 'error', text: e.outcome }),
          ),
        );
      }
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
