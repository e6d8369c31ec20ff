// Bench child for `bench:idp`: one demo IdP on 127.0.0.1 (temporary data directory, login
// throttling out of the way), built from a compiled checkout: this one by default, or an
// older one (`git worktree add … <commit>` and built there) so the same measurements run
// against the IdP before a change. Every module is loaded from that checkout's dist, so the
// older IdP never shares code with this one. Besides serving, the child measures the bare
// work of a token (one password check, one token pair) on its own CPU clock.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import type { RequestListener, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveParent } from './child-endpoint';

export interface IdpStartArgs {
  /** The compiled checkout's `dist` directory; unset: the one this module was built into. */
  readonly distRoot?: string;
}

export interface IdpInfo {
  readonly url: string;
  /** The demo user every request signs in as, and the seed's demo password (bench only). */
  readonly username: string;
  readonly password: string;
  /** The todo page's public client and its registered redirect URI (the code flow's client). */
  readonly clientId: string;
  readonly redirectUri: string;
  /** The JSON token endpoint's path and how many password checks the IdP runs at once, from its own code. */
  readonly tokenPath: string;
  readonly hashingInFlight: number;
}

/** CPU and wall time of {@link bare}: `tokens` tokens' bare work, `concurrency` at once. */
export interface BareWork {
  readonly tokens: number;
  /** CPU µs of this process (all threads, scrypt's included) over the whole batch. */
  readonly cpuUs: number;
  readonly seconds: number;
}

// What this module needs from a checkout; the older IdP (7e2dc1a) has the same surface.
type Modules = {
  config: typeof import('../../../src/config');
  directory: typeof import('../../../src/directory');
  http: typeof import('../../../src/http');
  idp: typeof import('../../../src/idp');
  observability: typeof import('../../../src/observability');
};

const dataDir = mkdtempSync(join(tmpdir(), 'outpost-bench-idp-'));
let running: { server: Server; close: () => Promise<void> } | undefined;
/** The two halves of one token's bare work, once the IdP runs. */
let work: { verify: () => Promise<void>; sign: () => Promise<unknown> } | undefined;

function load(distRoot: string): Modules {
  const from = <T>(path: string) => require(join(distRoot, 'src', path)) as T;
  return {
    config: from('config'),
    directory: from('directory'),
    http: from('http'),
    idp: from('idp'),
    observability: from('observability'),
  };
}

async function start(args: IdpStartArgs): Promise<IdpInfo> {
  if (running) throw new Error('the IdP is already running');
  const m = load(args.distRoot ?? join(__dirname, '..', '..', '..'));
  // The IdP's issuer is its own URL, so the port is taken before the config is built.
  let handler: RequestListener | undefined;
  const server = await m.http.listen((req, res) => handler?.(req, res), 0, '127.0.0.1');
  const url = m.http.baseUrl(server);
  const config = m.config.loadConfig({ OUTPOST_DATA_DIR: dataDir, LOG_LEVEL: 'silent', AUTH_URL: url, LOGIN_MAX_FAILURES: '1000000000' });
  const idp = await m.idp.openIdp(config, m.observability.silentLogger());
  handler = idp.app;
  running = {
    server,
    async close() {
      idp.hashing.close();
      await m.http.close(server);
      await idp.close();
    },
  };

  const seed = m.directory.loadDirectorySeed(config.directorySeedFile);
  const user = seed.directory.users[0];
  const client = config.idp.clients.find((c) => c.clientId === 'outpost-todo');
  if (!user || !client?.redirectUris[0]) throw new Error('the seed has no users or the config no todo client');

  // The bare work of one token at the JSON endpoint: the user's real stored hash, verified,
  // then the endpoint's own token issuer (access token + ID token, RS256).
  const stored = (JSON.parse(readFileSync(m.idp.idpFiles(dataDir).usersFile, 'utf8')) as { users: { id: string; password_hash: string }[] }).users;
  const hash = stored.find((u) => u.id === user.id)?.password_hash;
  if (!hash) throw new Error(`no stored hash for ${user.email}`);
  const issueTokens = m.idp.createTokenIssuer({ ...config.idp, keys: idp.keys, clock: m.idp.systemClock });
  const profile = { id: user.id, email: user.email, name: user.name };
  work = {
    async verify() {
      if (!(await m.idp.verifyPassword(seed.demoPassword, hash))) throw new Error('the stored hash did not verify');
    },
    sign: () => issueTokens(profile),
  };

  return {
    url,
    username: user.email,
    password: seed.demoPassword,
    clientId: client.clientId,
    redirectUri: client.redirectUris[0],
    tokenPath: m.idp.TOKEN_PATH,
    hashingInFlight: m.idp.HASHING_IN_FLIGHT,
  };
}

/** `tokens` runs of the bare work, `concurrency` at once (as many as the IdP checks passwords at once). */
async function bare(args: { tokens: number; concurrency: number }): Promise<BareWork> {
  const parts = work;
  if (!parts) throw new Error('start the IdP first');
  let left = args.tokens;
  const worker = async () => {
    while (left > 0) {
      left -= 1;
      await parts.verify();
      await parts.sign();
    }
  };
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: args.concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  return { tokens: args.tokens, cpuUs: cpu.user + cpu.system, seconds };
}

/** Mean wall ms of one password verification and of one token pair, each run `iterations` times in sequence. */
async function steps(args: { iterations: number }): Promise<{ verifyMs: number; signMs: number }> {
  const parts = work;
  if (!parts) throw new Error('start the IdP first');
  const time = async (run: () => Promise<unknown>) => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < args.iterations; i += 1) await run();
    return Number(process.hrtime.bigint() - started) / 1e6 / args.iterations;
  };
  return { verifyMs: await time(parts.verify), signMs: await time(parts.sign) };
}

serveParent({ start, bare, steps }, async () => {
  await running?.close();
  rmSync(dataDir, { recursive: true, force: true });
});
