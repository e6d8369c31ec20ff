import { join } from 'node:path';
import express, { type Router } from 'express';
import { CONSOLE_CLIENT_ID, findProjectRoot } from '../config';
import { contentSecurityPolicy, serveBrowserModules, serveFile } from '../http';

/** Where the console's page is served: `{relay_url}/console/`. */
export const CONSOLE_PAGE_PATH = '/console';

/** The console page's static files in a checkout (served from the sources, as the todo page is). */
export function consolePublicDir(projectRoot: string): string {
  return join(projectRoot, 'src', 'console', 'public');
}

/** The console's web page: its static files and the IdP it signs in at. */
export interface ConsolePage {
  /** Folder with index.html and the page's ES modules. */
  readonly publicDir: string;
  /** `{auth_url}`: the page signs in there, so the CSP must let it connect. */
  readonly authUrl: string;
}

/**
 * The console's page under `/console/` (docs/reference/api.md, Console API): plain ES modules from this
 * origin, oauth4webapi from node_modules (never a CDN), `config.json` telling the page where
 * and as whom to sign in, and `/console/callback` (the console client's registered redirect
 * URI) serving the same page, which finishes the code exchange there. The CSP stays 'self',
 * plus the IdP's origin for `connect-src` (discovery, token, revocation), and asks browsers
 * to upgrade requests to https only when the page itself came over https.
 */
export function consolePageRouter(page: ConsolePage): Router {
  const index = join(page.publicDir, 'index.html');
  const pages = express.Router();
  pages.use(contentSecurityPolicy({ connectSrc: ["'self'", new URL(page.authUrl).origin] }));
  pages.get('/config.json', (_req, res) => {
    res.json({ auth_url: page.authUrl, client_id: CONSOLE_CLIENT_ID });
  });
  serveBrowserModules(pages, findProjectRoot());
  pages.get('/callback', serveFile(index));
  pages.use(express.static(page.publicDir, { index: 'index.html' }));
  return express.Router().use(CONSOLE_PAGE_PATH, pages);
}
