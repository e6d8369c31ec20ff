// Starts an app of your own from the template:  npm run new-app -- billing [--port 3010]
//
// Writes src/apps/<name>/ (an Express app on the project's middleware with an embedded edge,
// two routes), policies/<name>/ (schema, policy, tests that allow and deny) and
// test/apps/<name>-app.test.ts, and adds the app's line to apps.json. No other file changes:
// the next `npm start` builds it, gives it a connection in the demo tenant and runs it.
import { findProjectRoot, loadConfig } from '../src/config';
import { stackComponents } from '../src/stack/components';
import { runScript } from './lib/run-script';
import { scaffoldApp } from './lib/scaffold-app';
import { portNumber, scriptCommand } from './lib/script-command';

function main(name: string, options: { port?: number }): void {
  const root = findProjectRoot(__dirname);
  const config = loadConfig(process.env, root);
  // The ports the IdP, the control plane and the edge listen on now: never an app's.
  const stackPorts = stackComponents(config)
    .filter((c) => !config.apps.list.some((app) => `${app.name}-app` === c.name))
    .map((c) => c.port);
  const { entry, files } = scaffoldApp({ root, name, stackPorts, ...(options.port === undefined ? {} : { port: options.port }) });
  const curl = (method: string) =>
    `    curl -i${method === 'GET' ? '' : ` -X ${method}`} http://localhost:${entry.port}/items/42 -H "Authorization: Bearer $(npm run -s token -- beth@the-smiths.com)"`;
  console.log(
    [
      `Created the ${entry.name} app (port ${entry.port}, which ${entry.env}_PORT moves; policy ${entry.policy}):`,
      ...files.map((file) => `  ${file}`),
      '  apps.json: its line',
      '',
      'Next:',
      '  npm start   (builds it, gives it a connection in the demo tenant, runs it with the others); then Beth, a viewer, may read (200) but not delete (403):',
      curl('GET'),
      curl('DELETE'),
      `  npm run policy -- test policies/${entry.policy}   (its policy's tests)`,
      `  npx jest test/apps/${entry.name}-app.test.ts   (the app against the real IdP)`,
      `  edit policies/${entry.policy}: the next npm start pushes it (the banner says so); npm run dev pushes it as you save`,
      'The short loop, no control plane (docs/guide/03-your-own-app.md): the IdP, and in another terminal the app deciding from policies/ itself (Ctrl+C and run it again after an edit):',
      '  npm run build && node dist/src/idp-server/main.js',
      `  AUTHORIZER=local node dist/src/${entry.entry}.js`,
    ].join('\n'),
  );
}

scriptCommand(
  'npm run new-app --',
  'start an app of your own: writes src/apps/<name>/ (Express, the project\'s middleware, an embedded edge, two routes), policies/<name>/ (schema, policy, tests) and test/apps/<name>-app.test.ts, and adds its line to apps.json; never overwrites a file',
  'npm run new-app -- billing --port 3010',
)
  .argument('<name>', 'lowercase letters, digits and dashes, starting with a letter: the folder, the policy and the connection')
  .option('--port <number>', "the app's port (default: the next after the listed apps' highest that no component uses)", portNumber)
  .action((name: string, options: { port?: number }) => runScript('new-app', () => main(name, options)))
  .parse();
