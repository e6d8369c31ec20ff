// Runs a policy folder's own tests locally, pushes a policy folder to the control plane's
// registry as an image tagged `latest`, and shows a policy's images (admin API, admin key).
//
//   npm run policy -- test policies/rbac            # tests/*.json, a table; exit 1 on failure
//   npm run policy -- push policies/rbac            # name from the manifest or folder
//   npm run policy -- push ./my-rbac --name rbac
//   npm run policy -- show rbac
//
// Credentials: OUTPOST_TENANT_ID + OUTPOST_ADMIN_API_KEY, else <data dir>/demo-tenant.json.
import { resolve } from 'node:path';
import { Command } from 'commander';
import { loadConfig } from '../src/config';
import { PolicyImageError, createPolicyImage, readPolicyFolder, type PolicyImage } from '../src/policy';
import { callTenantApi } from './lib/call-tenant-api';
import { runScript } from './lib/run-script';
import { ScriptError } from './lib/script-error';
import { loadTenantCredentials } from './lib/tenant-credentials';
import { testPolicyFolder } from './lib/test-policy-folder';

const credentials = () => {
  const config = loadConfig();
  return loadTenantCredentials(config, 'admin');
};

function readFolder(folder: string, name: string | undefined): PolicyImage {
  try {
    const image = readPolicyFolder(resolve(folder));
    return name === undefined ? image : createPolicyImage(name, image.files);
  } catch (err) {
    if (err instanceof PolicyImageError) throw new ScriptError(err.message);
    throw err;
  }
}

async function push(folder: string, options: { name?: string }): Promise<void> {
  const image = readFolder(folder, options.name);
  const creds = credentials();
  const path = `/api/v2/admin/policies/${encodeURIComponent(image.name)}`;
  const res = await callTenantApi<{ name: string; digest: string; tag: string }>(creds, {
    method: 'POST',
    path,
    body: { files: image.files },
  });
  const what = res.status === 201 ? 'pushed new image' : 'unchanged (image already stored)';
  console.log(`${res.body.name}: ${what}\n  digest ${res.body.digest}\n  tag    ${res.body.tag}`);
  console.log('Edges pick it up at their next discovery, or now with: npm run relay-exec -- discovery --connection-id <id>');
}

async function show(name: string): Promise<void> {
  const res = await callTenantApi<{ name: string; latest: string | null; images: { digest: string; created_at: string }[] }>(credentials(), {
    method: 'GET',
    path: `/api/v2/admin/policies/${encodeURIComponent(name)}`,
  });
  console.log(`${res.body.name} (latest: ${res.body.latest ?? 'none'})`);
  for (const image of res.body.images) {
    console.log(`  ${image.digest}  ${image.created_at}${image.digest === res.body.latest ? '  <- latest' : ''}`);
  }
}

const program = new Command().name('policy').description('test policy folders, push and inspect policy images in the control plane registry');
program
  .command('test')
  .description("run a policy folder's tests (tests/*.json) through the edge's decision path and print a table")
  .argument('<folder>', 'policy folder (manifest.json, schema.cedarschema, *.cedar, tests/*.json)')
  .action((folder: string) => runScript('policy test', () => testPolicyFolder(folder)));
program
  .command('push')
  .description('validate a policy folder at the control plane and store it as an image tagged latest')
  .argument('<folder>', 'policy folder (manifest.json, schema.cedarschema, *.cedar, tests/*.json)')
  .option('--name <name>', 'policy name (default: the manifest name, else the folder name)')
  .action((folder: string, options: { name?: string }) => runScript('policy push', () => push(folder, options)));
program
  .command('show')
  .description("list a policy's images and which one is latest")
  .argument('<name>', 'policy name')
  .action((name: string) => runScript('policy show', () => show(name)));
program.parseAsync().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
