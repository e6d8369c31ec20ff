// The Policies view (read-only for every member): the tenant's policy names with the digest
// `latest` points at; for the opened name its stored images (digest, tag, signature, pushed
// at), the files of an image, and the line diff (diff.js) between two images of that name,
// its long unchanged runs folded behind a button that shows them.
// Signed images (pushed with `npm run policy -- push --sign`) are marked "signed" with the
// version their signature signed. Images are pushed with the admin API or `npm run policy`,
// never from here.
import { api, tenantPath } from './api.js';
import { foldUnchanged, imageDiff } from './diff.js';
import { el, labelCells, loadInto, when } from './dom.js';

const short = (digest) => digest.slice(0, 19);

/** The mark of a signed image ("signed", "signed v3"), or of an unsigned one. */
function signature(signed, version) {
  if (!signed) return el('span', { class: 'hint', 'data-signed': 'false', text: 'unsigned' });
  return el('span', { class: 'badge signed', 'data-signed': 'true', title: 'pushed with a signature the control plane verified', text: version ? `signed v${version}` : 'signed' });
}

/** One line of a diff as a span; a fold of unchanged lines as a button that shows them in its place. */
function diffLine(l) {
  if (l.op !== 'fold') return el('span', { class: `line${l.op === '+' ? ' add' : l.op === '-' ? ' del' : ''}`, text: `${l.op} ${l.line}\n` });
  const n = l.lines.length;
  const fold = el('button', { type: 'button', class: 'fold', 'aria-label': `Show ${n} unchanged lines`, text: `… ${n} unchanged lines …` });
  fold.onclick = () => fold.replaceWith(...l.lines.map(diffLine));
  return fold;
}

/** The view in `section`: `show(account)` lists that tenant's policies, `hide()` stops showing them. */
export function policiesView(section) {
  const body = section.querySelector('.body');
  let account = null;

  const policyPath = (name, rest = '') => tenantPath(account, `/policies/${encodeURIComponent(name)}${rest}`);
  const image = (name, digest) => api('GET', policyPath(name, `/images/${encodeURIComponent(digest)}`));

  /** Replaces the detail pane (files, a file, a diff) with `nodes`. */
  function detail(...nodes) {
    section.querySelector('.detail').replaceChildren(...nodes);
  }

  /** Runs a load for the pane, showing a refusal as it came. */
  async function into(load) {
    try {
      await load();
    } catch (err) {
      detail(el('p', { class: 'error', text: err.message }));
    }
  }

  async function showFiles(name, digest) {
    const { files } = await image(name, digest);
    const view = el('pre', { id: 'policy-file', tabindex: 0 }, el('code'));
    const buttons = Object.keys(files).sort().map((path) =>
      el('button', { type: 'button', text: path, onclick: () => view.firstChild.replaceChildren(files[path]) }),
    );
    detail(el('h4', {}, 'Files of ', el('code', { text: short(digest) })), el('div', { class: 'actions' }, ...buttons), view);
  }

  async function showDiff(name, from, to) {
    const [a, b] = await Promise.all([image(name, from), image(name, to)]);
    const files = imageDiff(a.files, b.files);
    detail(
      el('h4', {}, 'Changes from ', el('code', { text: short(from) }), ' to ', el('code', { text: short(to) })),
      ...(files.length === 0 ? [el('p', { text: 'The two images hold the same files.' })] : []),
      ...files.map((f) =>
        el('figure', {}, el('figcaption', {}, el('code', { text: f.path })), el('pre', { class: 'diff' }, ...foldUnchanged(f.lines).map(diffLine))),
      ),
    );
  }

  async function open(name) {
    const versions = await api('GET', policyPath(name));
    const rows = versions.images.map((i) =>
      el(
        'tr',
        { 'data-digest': i.digest },
        el('td', {}, el('code', { text: i.digest })),
        el('td', {}, i.digest === versions.latest ? el('span', { class: 'badge', text: 'latest' }) : ''),
        el('td', {}, signature(i.signed, i.signed_version)),
        el('td', { text: when(i.created_at) }),
        el('td', {}, el('button', { type: 'button', text: 'View files', 'aria-label': `View files of ${i.digest}`, onclick: () => into(() => showFiles(name, i.digest)) })),
      ),
    );
    const pick = (id, label, index) => {
      const select = el('select', { id, 'aria-label': label }, ...versions.images.map((i) => el('option', { value: i.digest, text: `${short(i.digest)} · ${when(i.created_at)}` })));
      select.selectedIndex = Math.min(index, versions.images.length - 1);
      return select;
    };
    // Older (the second newest) against newer (the newest) by default.
    const from = pick('diff-from', 'diff from image', 1);
    const to = pick('diff-to', 'diff to image', 0);
    const diff = el('form', { class: 'inline' }, el('span', { text: 'Diff' }), from, el('span', { text: 'against' }), to, el('button', { type: 'submit', text: 'Show diff' }));
    diff.onsubmit = (event) => {
      event.preventDefault();
      into(() => showDiff(name, from.value, to.value));
    };
    section.querySelector('.images').replaceChildren(
      el('h3', {}, 'Images of ', el('code', { id: 'policy-name', text: name })),
      el(
        'div',
        { class: 'scroll' },
        labelCells(
          el(
            'table',
            {},
            el('caption', { text: `${rows.length} stored images, newest first` }),
            el('thead', {}, el('tr', {}, ...['Digest', 'Tag', 'Signature', 'Pushed at', ''].map((h) => el('th', { scope: 'col', text: h })))),
            el('tbody', {}, ...rows),
          ),
        ),
      ),
      ...(versions.images.length > 1 ? [diff] : []),
    );
    detail();
  }

  async function load(next) {
    const { policies } = await api('GET', tenantPath(next, '/policies'));
    if (next !== account) return;
    const items = policies.map((p) =>
      el(
        'li',
        { 'data-policy': p.name },
        el('button', { type: 'button', text: `Open ${p.name}`, onclick: () => into(() => open(p.name)) }),
        'latest ',
        el('code', { text: p.digest }),
        p.signed ? signature(true) : '',
      ),
    );
    body.replaceChildren(
      policies.length === 0 ? el('p', { class: 'meta', text: 'No policy pushed yet.' }) : el('ul', { class: 'plain' }, ...items),
      el('div', { class: 'images' }),
      el('div', { class: 'detail' }),
    );
  }

  return {
    async show(next) {
      account = next;
      await loadInto(body, 'policies', () => load(next), () => next === account);
    },
    hide() {
      account = null;
    },
  };
}
