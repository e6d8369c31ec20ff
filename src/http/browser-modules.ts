import { join } from 'node:path';
import type { Router } from 'express';
import { serveFile } from './serve-file';

/**
 * Serves the browser modules Outpost's pages load from their own origin, never a CDN (the
 * CSP stays 'self' and the code that handles tokens is the code that was installed):
 * `/vendor/oauth4webapi.js` from node_modules and `/vendor/code-flow-client.js`, the shared
 * sign-in client (`src/http/public/`, served from the sources like the pages themselves),
 * wherever the checkout lives ({@link serveFile}).
 */
export function serveBrowserModules(router: Router, projectRoot: string): void {
  const oauth4webapi = require.resolve('oauth4webapi');
  const codeFlowClient = join(projectRoot, 'src', 'http', 'public', 'code-flow-client.js');
  router.get('/vendor/oauth4webapi.js', serveFile(oauth4webapi));
  router.get('/vendor/code-flow-client.js', serveFile(codeFlowClient));
}
