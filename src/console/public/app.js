// The console's shell: sign-in (sign-in.js), the tenant switcher from GET /console/api/me,
// and the views. A view is a section with `show(account)` / `hide()`; only the shown one
// talks to the API.
import { accountTitle, accountView } from './account.js';
import { api } from './api.js';
import { auditView } from './audit.js';
import { authorizersView } from './authorizers.js';
import { connectionsView } from './connections.js';
import { decisionsView } from './decisions.js';
import { directoryView } from './directory.js';
import { policiesView } from './policies.js';
import { announce, setSignedInUser } from './dom.js';
import { completeSignIn, signIn, signOut } from './sign-in.js';

const $ = (id) => document.getElementById(id);
const views = {
  authorizers: authorizersView($('view-authorizers')),
  connections: connectionsView($('view-connections')),
  policies: policiesView($('view-policies')),
  directory: directoryView($('view-directory')),
  account: accountView($('view-account')),
  decisions: decisionsView($('view-decisions')),
  audit: auditView($('view-audit')),
};
let accounts = [];
let current = 'authorizers';

function account() {
  return accounts.find((a) => a.tenant_id === $('tenant').value);
}

/** Shows view `name` for the selected account and marks its tab. */
function showView(name) {
  current = name;
  for (const [key, view] of Object.entries(views)) {
    const shown = key === name;
    $(`view-${key}`).hidden = !shown;
    if (!shown) view.hide();
  }
  for (const tab of $('views').querySelectorAll('button')) {
    if (tab.dataset.view === name) tab.setAttribute('aria-current', 'page');
    else tab.removeAttribute('aria-current');
  }
  const selected = account();
  $('views').querySelector('[data-view="account"]').textContent = accountTitle(selected.kind);
  views[name].show(selected);
}

/** Fills the tenant switcher with every account of the user; organizations first. */
function fillSwitcher(list) {
  accounts = [...list].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'organization' ? -1 : 1));
  $('tenant').replaceChildren(
    ...accounts.map((a) => {
      const option = document.createElement('option');
      option.value = a.tenant_id;
      option.textContent = `${a.name} · ${a.kind} · ${a.role}`;
      return option;
    }),
  );
}

function showSignedIn(claims) {
  $('who').textContent = claims ? `signed in as ${claims.name ?? claims.email ?? claims.sub}` : 'not signed in';
  $('sign-in').hidden = Boolean(claims);
  $('sign-out').hidden = !claims;
  $('tenant-field').hidden = !claims;
  $('views').hidden = !claims;
  $('intro').hidden = Boolean(claims);
  if (!claims) for (const key of Object.keys(views)) $(`view-${key}`).hidden = true;
}

$('sign-in').onclick = () => signIn().catch((err) => announce(err.message));
// The page's HTML says "loading…" with Sign in disabled: a click before the IdP's discovery and
// these handlers are in place would do nothing, and the page would look signed out.
$('sign-in').disabled = false;
$('sign-out').onclick = () => signOut().catch((err) => announce(err.message));
$('tenant').onchange = () => showView(current);
for (const tab of $('views').querySelectorAll('button')) tab.onclick = () => showView(tab.dataset.view);

showSignedIn(null);
try {
  const claims = await completeSignIn();
  if (claims) {
    const me = await api('GET', '/me');
    setSignedInUser({ id: me.user.id, name: claims.name, email: claims.email });
    fillSwitcher(me.accounts);
    showSignedIn(claims);
    if (accounts.length === 0) announce('you belong to no account yet');
    else showView(current);
    $('main').focus();
  }
} catch (err) {
  showSignedIn(null);
  announce(`sign-in failed: ${err.error_description || err.message}`);
}
