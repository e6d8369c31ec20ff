// Runs a policy folder's own tests locally, replays an edge's recorded decisions against it, pushes a policy folder to the control plane's
// registry as an image tagged `latest`, and shows a policy's images (admin API, admin key).
//
//   npm run policy -- test policies/rbac            # tests/*.json, a table; exit 1 on failure
//   npm run policy -- diff policies/rbac --instance <id>   # which of that edge's recorded decisions would flip
//   npm run policy -- push policies/rbac            # name from the manifest or folder
//   npm run policy -- push ./my-rbac --name rbac
//   npm run policy -- show rbac
//   npm run policy -- keygen                        # .data/policy-signing.key.json (0600) + .pub.json
//   npm run policy -- add-key .data/policy-signing.pub.json
//   npm run policy -- push policies/rbac --sign .data/policy-signing.key.json   # signed as the next version
//   npm run policy -- push policies/rbac --sign .data/policy-signing.key.json --version 7
//   npm run policy -- keys | remove-key <kid>
//
// Credentials: OUTPOST_TENANT_ID + OUTPOST_ADMIN_API_KEY, else <data dir>/demo-tenant.json.
import { join, resolve } from 'node:path';
import { loadConfig } from '../src/config';
import { PolicyImageError, createPolicyImage, readPolicyFolder, signPolicyImage, type PolicyImage } from '../src/policy';
import { callTenantApi, explainApiError } from './lib/call-tenant-api';
import { diffPolicyFolder } from './lib/diff-policy-folder';
import { runScript } from './lib/run-script';
import { scriptCommand } from './lib/script-command';
import { ScriptError } from './lib/script-error';
import { parseSignedVersion, readPrivateKey, readPublicKeys, writeKeyPair } from './lib/signing-key-files';
import { loadTenantCredentials, type TenantCredentials } from './lib/tenant-credentials';
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

/**
 * The highest signed version the control plane has accepted for policy `name`, 0 before the
 * first: the `Outpost-Signed-Version` header of `GET /api/v2/admin/policies/:name` (which
 * answers 404 for a name never pushed). Its own request, since the header is the answer.
 */
async function signedVersion(creds: TenantCredentials, name: string): Promise<number> {
  let res: Response;
  try {
    res = await fetch(`${creds.relayUrl}/api/v2/admin/policies/${encodeURIComponent(name)}`, {
      headers: { 'service-tenant-id': creds.tenantId, authorization: `basic ${creds.key}` },
      signal: AbortSignal.timeout(15_000),
    });
  } catch {
    throw new ScriptError(`cannot reach the control plane at ${creds.relayUrl} — is the stack running (npm start)? Set RELAY_URL otherwise.`);
  }
  const body = (await res.json().catch(() => ({}))) as { code?: unknown; message?: unknown };
  if (res.status === 404 && body.code === 'unknown_policy') return 0;
  if (!res.ok) throw new ScriptError(explainApiError(res.status, body, creds));
  const header = res.headers.get('outpost-signed-version');
  return header === null ? 0 : parseSignedVersion(header);
}

async function push(folder: string, options: { name?: string; sign?: string; version?: string }): Promise<void> {
  const image = readFolder(folder, options.name);
  if (options.version !== undefined && options.sign === undefined) throw new ScriptError('--version needs --sign: the version is part of the signature');
  const chosen = options.version === undefined ? undefined : parseSignedVersion(options.version);
  // Read the key before any network call: a wrong file fails fast and alone.
  const privateKey = options.sign === undefined ? undefined : readPrivateKey(options.sign);
  const creds = credentials();
  let signed: { signature: string; version: number } | undefined;
  if (privateKey !== undefined) {
    // The next version unless one is given: each signed push must go above the last.
    const version = chosen ?? (await signedVersion(creds, image.name)) + 1;
    signed = { version, signature: await signPolicyImage({ name: image.name, digest: image.digest, version }, privateKey) };
  }
  const path = `/api/v2/admin/policies/${encodeURIComponent(image.name)}`;
  const res = await callTenantApi<{ name: string; digest: string; tag: string }>(creds, {
    method: 'POST',
    path,
    body: signed === undefined ? { files: image.files } : { files: image.files, signature: signed.signature },
  });
  const what = res.status === 201 ? 'pushed new image' : 'image already stored, tagged latest again';
  console.log(`${res.body.name}: ${what}${signed === undefined ? '' : `, signed as version ${signed.version}`}\n  digest ${res.body.digest}\n  tag    ${res.body.tag}`);
  console.log('Edges pick it up at their next discovery, or now with: npm run relay-exec -- discovery --connection-id <id>');
}

async function keygen(options: { out?: string; alg: string }): Promise<void> {
  if (options.alg !== 'Ed25519' && options.alg !== 'ES256') throw new ScriptError('--alg must be Ed25519 or ES256');
  const prefix = options.out ?? join(loadConfig().dataDir, 'policy-signing');
  const files = await writeKeyPair(prefix, options.alg);
  console.log(`private key ${files.privateFile} (mode 0600: keep it secret)\npublic key  ${files.publicFile}\nkey id      ${files.kid}`);
  console.log(`Register it: npm run policy -- add-key ${files.publicFile}\nPin it at edges: EDGE_POLICY_SIGNING_KEYS=${files.publicFile}`);
}

async function addKey(file: string): Promise<void> {
  const creds = credentials();
  for (const jwk of readPublicKeys(file)) {
    const res = await callTenantApi<{ kid: string }>(creds, { method: 'POST', path: '/api/v2/admin/signing-keys', body: { jwk } });
    console.log(`${res.body.kid}: ${res.status === 201 ? 'registered' : 'already registered'}`);
  }
  console.log('From now on the control plane accepts only pushes signed by a registered key (push --sign <private key file>).');
}

async function listKeys(): Promise<void> {
  const res = await callTenantApi<{ keys: { kid: string; jwk: { crv: string }; created_at: string }[] }>(credentials(), {
    method: 'GET',
    path: '/api/v2/admin/signing-keys',
  });
  if (res.body.keys.length === 0) console.log('no signing keys: pushes need no signature');
  for (const key of res.body.keys) console.log(`${key.kid}  ${key.jwk.crv}  ${key.created_at}`);
}

async function removeKey(kid: string): Promise<void> {
  await callTenantApi(credentials(), { method: 'DELETE', path: `/api/v2/admin/signing-keys/${encodeURIComponent(kid)}` });
  console.log(`${kid}: removed`);
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

const program = scriptCommand(
  'npm run policy --',
  'test policy folders, push and inspect policy images in the control plane registry (<command> --help for each)',
  'npm run policy -- push policies/rbac',
);
program
  .command('test')
  .description("run a policy folder's tests (tests/*.json) through the edge's decision path and print a table")
  .argument('<folder>', 'policy folder (manifest.json, schema.cedarschema, *.cedar, tests/*.json)')
  .action((folder: string) => runScript('policy test', () => testPolicyFolder(folder)));
program
  .command('diff')
  .description("replay an edge's recently recorded decisions against a policy folder (nothing is pushed) and print which would flip")
  .argument('<folder>', 'policy folder (manifest.json, schema.cedarschema, *.cedar, tests/*.json)')
  .requiredOption('--instance <id>', 'the edge whose decisions to replay (npm run find-instance -- <connection id>)')
  .option('--name <name>', 'policy name (default: the manifest name, else the folder name)')
  .action((folder: string, options: { instance: string; name?: string }) =>
    runScript('policy diff', async () => void (await diffPolicyFolder(folder, options, credentials()))),
  );
program
  .command('push')
  .description('validate a policy folder at the control plane and store it as an image tagged latest')
  .argument('<folder>', 'policy folder (manifest.json, schema.cedarschema, *.cedar, tests/*.json)')
  .option('--name <name>', 'policy name (default: the manifest name, else the folder name)')
  .option('--sign <private key file>', 'sign the image (name, digest, version) with this key (written by keygen)')
  .option('--version <n>', 'with --sign: the version to sign (default: one above the highest the control plane accepted)')
  .action((folder: string, options: { name?: string; sign?: string; version?: string }) => runScript('policy push', () => push(folder, options)));
program
  .command('show')
  .description("list a policy's images and which one is latest")
  .argument('<name>', 'policy name')
  .action((name: string) => runScript('policy show', () => show(name)));
program
  .command('keygen')
  .description('write a new image-signing key pair: <out>.key.json (private, 0600) and <out>.pub.json (public key set)')
  .option('--out <prefix>', 'file name prefix (default: <data dir>/policy-signing)')
  .option('--alg <algorithm>', 'Ed25519 or ES256', 'Ed25519')
  .action((options: { out?: string; alg: string }) => runScript('policy keygen', () => keygen(options)));
program
  .command('add-key')
  .description("register the public keys of a key set file with the tenant; from then on pushes must be signed")
  .argument('<public key file>', 'a .pub.json file written by keygen')
  .action((file: string) => runScript('policy add-key', () => addKey(file)));
program
  .command('keys')
  .description("list the tenant's registered signing keys")
  .action(() => runScript('policy keys', () => listKeys()));
program
  .command('remove-key')
  .description('remove a registered signing key (removing the last one lifts the signing requirement)')
  .argument('<kid>', 'key id, as add-key or keys print it')
  // A key id is base64url and may begin with "-" (one in 64 does): taken as the id, not refused as an
  // unknown option. The control plane refuses anything that is not a key id.
  .allowUnknownOption()
  .action((kid: string) => runScript('policy remove-key', () => removeKey(kid)));
program.parseAsync().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
