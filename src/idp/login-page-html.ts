import type { IdpUser } from './user-store';

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A minimal, accessible page frame: one heading, a main landmark, readable without CSS. The
 * fields take the page's width and long words wrap, so it fits a phone (390 px): a select is
 * as wide as its longest option otherwise.
 */
export function renderPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Outpost IdP</title>
<style>*{box-sizing:border-box}body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#1d2330}
label{display:block;margin:.75rem 0 .25rem}input,select,button{font:inherit;padding:.4rem .6rem;max-width:100%}
select,input:not([type=hidden]){width:100%}p,h1{overflow-wrap:anywhere}
[role=alert]{color:#a3271f}.hint{color:#5a6275;font-size:.9rem}</style>
</head>
<body><main>
<h1>${escapeHtml(title)}</h1>
${body}
</main></body>
</html>
`;
}

/** What the login page shows. */
export interface LoginPageModel {
  readonly clientId: string;
  /** Where the form posts: this sign-in's own `/login/<uid>`. */
  readonly action: string;
  readonly csrfToken: string;
  readonly users: readonly IdpUser[];
  readonly error?: string;
  readonly username?: string;
}

/**
 * The IdP's login page: a plain form (works without JavaScript), the demo users listed for
 * convenience, the CSRF token in a hidden field, errors announced with `role="alert"`.
 */
export function renderLoginPage(model: LoginPageModel): string {
  const csrf = `<input type="hidden" name="csrf_token" value="${escapeHtml(model.csrfToken)}">`;
  const options = model.users
    .map((u) => {
      const selected = u.email === model.username ? ' selected' : '';
      return `<option value="${escapeHtml(u.email)}"${selected}>${escapeHtml(u.name)} (${escapeHtml(u.email)})</option>`;
    })
    .join('\n');
  const error = model.error ? `<p role="alert">${escapeHtml(model.error)}</p>` : '';
  return renderPage(
    'Sign in',
    `<p><strong>${escapeHtml(model.clientId)}</strong> asks you to sign in.</p>
${error}
<form method="post" action="${escapeHtml(model.action)}">${csrf}
<label for="username">Demo user</label>
<select id="username" name="username" autocomplete="username">
${options}
</select>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<p class="hint">Every demo user has the demo password from the README.</p>
<button type="submit">Sign in</button>
</form>`,
  );
}
