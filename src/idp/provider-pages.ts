import type { KoaContextWithOIDC } from 'oidc-provider';
import { escapeHtml, renderPage } from './login-page-html';

// The provider's own pages (src/idp/provider.ts): an error it cannot send back, and sign-out.

/** Errors at /authorize that cannot go back to the client (unknown client or redirect URI) are shown as a page. */
export async function renderError(ctx: KoaContextWithOIDC, out: { error: string; error_description?: string }): Promise<void> {
  ctx.type = 'html';
  ctx.body = renderPage(
    'Sign-in failed',
    `<p role="alert">${escapeHtml(out.error_description ?? out.error)}</p><p>Go back to the application and start again.</p>`,
  );
}

/** RP-initiated logout asks before it signs out, so a link alone cannot sign anyone out. */
export async function logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  // The form's post ends in a redirect to the client (already checked against its registered
  // post-logout URIs); browsers apply form-action to that redirect too.
  const back = ctx.oidc.params?.post_logout_redirect_uri;
  const formAction = typeof back === 'string' ? `'self' ${new URL(back).origin}` : "'self'";
  ctx.set('Content-Security-Policy', `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'`);
  ctx.type = 'html';
  ctx.body = renderPage('Sign out', `${form}<p>Sign out of the Outpost IdP?</p><button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>`);
}

/** The page after sign-out, when the client named no post-logout redirect. */
export async function postLogoutSuccessSource(ctx: KoaContextWithOIDC): Promise<void> {
  ctx.type = 'html';
  ctx.body = renderPage('Signed out', '<p>You are signed out of the Outpost IdP.</p>');
}
