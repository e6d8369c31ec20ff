// How long a genuine sign-in takes while junk sign-ins flood the IdP. Not a test: run it by hand,
//   npm run bench:sign-in-flood -- [junk=400] [addresses=80] [unbounded]
// `unbounded` lifts the hashing bound (as the IdP was before it had one) for a before/after pair.
// Junk (fresh usernames, so no user lock) comes from 127.0.0.2…, the genuine user from 127.0.1.1
// (Linux routes all of 127/8 to lo); a second flood from 127.0.2.2… is under way at shutdown.
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Argument } from 'commander';
import { loadConfig } from '../../src/config';
import { baseUrl, close, listen } from '../../src/http';
import { createHashingLimiter, createIdpApp, HASHING_IN_FLIGHT, HASHING_QUEUE, openIdp, systemClock, TOKEN_PATH } from '../../src/idp';
import { silentLogger } from '../../src/observability';
import { loadDirectorySeed } from '../../src/directory';
import { scriptCommand } from '../lib/script-command';

function signIn(url: string, localAddress: string, username: string, password: string): Promise<{ status: number; retryAfter?: string }> {
  const body = JSON.stringify({ username, password });
  return new Promise((resolve, reject) => {
    const req = request(`${url}${TOKEN_PATH}`, { method: 'POST', localAddress, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume().on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }));
    });
    req.on('error', reject).end(body);
  });
}

async function main(junk: number, addresses: number, unbounded: boolean): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-flood-idp-'));
  const config = loadConfig({ OUTPOST_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const seed = loadDirectorySeed(config.directorySeedFile);
  const idp = await openIdp(config, silentLogger());
  const hashing = unbounded
    ? createHashingLimiter({ maxInFlight: Number.MAX_SAFE_INTEGER, maxQueued: 0 })
    : createHashingLimiter({ maxInFlight: HASHING_IN_FLIGHT, maxQueued: HASHING_QUEUE });
  const app = createIdpApp({ options: config.idp, users: idp.users, keys: idp.keys, hashing, adapter: idp.adapter, machineClient: idp.machineClient, logger: silentLogger(), clock: systemClock });
  const server = await listen(app, 0, '127.0.0.1');
  const url = baseUrl(server);

  const flood = Array.from({ length: junk }, (_, i) => signIn(url, `127.0.0.${2 + (i % addresses)}`, `junk-${i}@flood.test`, 'junk'));
  // The genuine user signs in once the flood is on the wire, honouring Retry-After.
  const started = performance.now();
  let first: number | undefined;
  let shed = 0;
  for (;;) {
    const res = await signIn(url, '127.0.1.1', seed.directory.users[0]!.email, seed.demoPassword);
    first ??= performance.now() - started;
    if (res.status !== 503) {
      if (res.status !== 200) throw new Error(`genuine sign-in answered ${res.status}`);
      break;
    }
    shed += 1;
    await new Promise((resolve) => setTimeout(resolve, Number(res.retryAfter) * 1000));
  }
  const genuine = performance.now() - started;

  const statuses = (await Promise.all(flood)).reduce<Record<number, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {});
  // Shutdown as on SIGTERM (src/idp-server/main.ts) while a second flood is being hashed.
  // Connections the closing server never accepted are reset: expected here, not an error.
  const second = Array.from({ length: junk }, (_, i) =>
    signIn(url, `127.0.2.${2 + (i % addresses)}`, `again-${i}@flood.test`, 'junk').catch(() => ({ status: 0 })),
  );
  const busy = unbounded ? junk / 2 : HASHING_IN_FLIGHT + HASHING_QUEUE;
  while (hashing.inFlight() + hashing.queued() < busy) await new Promise((resolve) => setImmediate(resolve));
  const closing = performance.now();
  hashing.close();
  await close(server);
  const shutdown = performance.now() - closing;
  await Promise.allSettled(second);
  rmSync(dataDir, { recursive: true, force: true });
  console.log(JSON.stringify({
    mode: unbounded ? 'unbounded (before)' : `bounded ${HASHING_IN_FLIGHT}+${HASHING_QUEUE} (after)`,
    junk, addresses, genuine_first_answer_ms: Math.round(first), genuine_token_ms: Math.round(genuine),
    genuine_503s: shed, shutdown_ms: Math.round(shutdown), junk_statuses: statuses,
  }));
}

scriptCommand(
  'npm run bench:sign-in-flood --',
  'how long a genuine sign-in takes while junk sign-ins from many loopback addresses flood the IdP, and how long it takes to shut down',
  'npm run bench:sign-in-flood -- 400 80 unbounded',
)
  .argument('[junk]', 'junk sign-ins per flood', Number, 400)
  .argument('[addresses]', 'loopback addresses they come from', Number, 80)
  .addArgument(new Argument('[unbounded]', 'lift the hashing bound, as the IdP was before it had one').choices(['unbounded']))
  .action((junk: number, addresses: number, mode: string | undefined) =>
    main(junk, addresses, mode === 'unbounded').catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    }),
  )
  .parse();
