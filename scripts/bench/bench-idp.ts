// Token issuance rate and latency of the demo IdP:  npm run bench:idp
// Starts an IdP in-process on 127.0.0.1 (random port, temporary data directory, throttling
// raised out of the way), loads the token endpoint with autocannon at a few concurrency
// levels, then times one password verification against one token-pair signing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { loadDirectorySeed } from '../../src/directory';
import { baseUrl, close, listen } from '../../src/http';
import { createTokenIssuer, hashPassword, openIdp, systemClock, TOKEN_PATH, verifyPassword } from '../../src/idp';
import { silentLogger } from '../../src/observability';
import { runLoad } from './lib/load';
import { meanMs } from './lib/stats';
import { fmt, machineLine, printTable } from './lib/table';

const CONCURRENCY = [1, 8, 32];
// Long enough that even 32 queued connections (each waiting for ~32 scrypt runs) complete requests.
const DURATION_SECONDS = 10;
const MICRO_ITERATIONS = 30;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-bench-idp-'));
  const config = loadConfig({ OUTPOST_DATA_DIR: dataDir, LOG_LEVEL: 'silent', LOGIN_MAX_FAILURES: '1000000000' });
  const idp = await openIdp(config, silentLogger());
  const server = await listen(idp.app, 0, '127.0.0.1');
  const seed = loadDirectorySeed(config.directorySeedFile);
  const user = seed.directory.users[0];

  try {
    console.log(`IdP bench: POST ${TOKEN_PATH}, ${DURATION_SECONDS} s per level, ${user.email}`);
    console.log(`${machineLine()}\n`);
    const rows: (string | number)[][] = [];
    for (const connections of CONCURRENCY) {
      const result = await runLoad(
        {
          label: String(connections),
          url: `${baseUrl(server)}${TOKEN_PATH}`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: user.email, password: seed.demoPassword }),
        },
        { connections, durationSeconds: DURATION_SECONDS, timeoutSeconds: 60 },
      );
      rows.push([String(connections), result.okRps, result.p50, result.p99, String(result.shed), String(result.failures)]);
    }
    // Past 4 checks running and 16 waiting the IdP sheds sign-ins with 503 at once: they count
    // as shed, not as failures, and the latencies mix both kinds of answer.
    printTable(['concurrency', 'tokens/s', 'p50 ms', 'p99 ms', 'shed (503)', 'failures'], rows);

    const hash = await hashPassword(seed.demoPassword);
    const verifyMs = await meanMs(MICRO_ITERATIONS, () => verifyPassword(seed.demoPassword, hash));
    const issueTokens = createTokenIssuer({ ...config.idp, keys: idp.keys, clock: systemClock });
    const signMs = await meanMs(MICRO_ITERATIONS, () => issueTokens({ id: user.id, email: user.email, name: user.name }));
    const total = verifyMs + signMs;
    console.log(`\nOne request's work, mean of ${MICRO_ITERATIONS} sequential runs:`);
    printTable(
      ['step', 'ms', 'share'],
      [
        ['scrypt password verification (N=2^15, r=8, p=1)', fmt(verifyMs, 2), `${fmt((100 * verifyMs) / total)} %`],
        ['token pair signing (2 × RS256)', fmt(signMs, 2), `${fmt((100 * signMs) / total)} %`],
      ],
    );
  } finally {
    await close(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
