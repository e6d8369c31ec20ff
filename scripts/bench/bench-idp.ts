// Token issuance rate and latency of the demo IdP:  npm run bench:idp
// Starts an IdP in-process on 127.0.0.1 (random port, temporary data directory, throttling
// raised out of the way), loads the token endpoint with autocannon at a few concurrency
// levels, then times one password verification against one token-pair signing.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { loadConfig } from '../../src/config';
import { loadDirectorySeed } from '../../src/directory';
import { baseUrl, close, listen } from '../../src/http';
import { createTokenIssuer, hashPassword, openIdp, systemClock, TOKEN_PATH, verifyPassword } from '../../src/idp';
import { silentLogger } from '../../src/observability';

const CONCURRENCY = [1, 8, 32];
// Long enough that even 32 queued connections (each waiting for ~32 scrypt runs) complete requests.
const DURATION_SECONDS = 10;
const MICRO_ITERATIONS = 30;

async function timeEach(iterations: number, run: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i += 1) await run();
  return Number(process.hrtime.bigint() - started) / 1e6 / iterations;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-bench-idp-'));
  const config = loadConfig({ OUTPOST_DATA_DIR: dataDir, LOG_LEVEL: 'silent', LOGIN_MAX_FAILURES: '1000000000' });
  const idp = await openIdp(config, silentLogger());
  const server = await listen(idp.app, 0, '127.0.0.1');
  const seed = loadDirectorySeed(config.directorySeedFile);
  const user = seed.directory.users[0];

  try {
    console.log(`IdP bench: POST ${TOKEN_PATH}, ${DURATION_SECONDS} s per level, node ${process.version}, ${cpus().length} CPUs, ${user.email}\n`);
    console.log('| concurrency | req/s | p50 ms | p99 ms | non-2xx |');
    console.log('|---:|---:|---:|---:|---:|');
    for (const connections of CONCURRENCY) {
      const result = await autocannon({
        url: `${baseUrl(server)}${TOKEN_PATH}`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: user.email, password: seed.demoPassword }),
        connections,
        duration: DURATION_SECONDS,
        timeout: 60,
      });
      console.log(
        `| ${connections} | ${result.requests.average.toFixed(1)} | ${result.latency.p50} | ${result.latency.p99} | ${result.non2xx + result.errors} |`,
      );
    }

    const hash = await hashPassword(seed.demoPassword);
    const verifyMs = await timeEach(MICRO_ITERATIONS, () => verifyPassword(seed.demoPassword, hash));
    const issueTokens = createTokenIssuer({ ...config.idp, keys: idp.keys, clock: systemClock });
    const signMs = await timeEach(MICRO_ITERATIONS, () => issueTokens({ id: user.id, email: user.email, name: user.name }));
    const total = verifyMs + signMs;
    console.log(`\nOne request's work, mean of ${MICRO_ITERATIONS} sequential runs:`);
    console.log('| step | ms | share |');
    console.log('|---|---:|---:|');
    console.log(`| scrypt password verification (N=2^15, r=8, p=1) | ${verifyMs.toFixed(2)} | ${((100 * verifyMs) / total).toFixed(1)} % |`);
    console.log(`| token pair signing (2 × RS256) | ${signMs.toFixed(2)} | ${((100 * signMs) / total).toFixed(1)} % |`);
  } finally {
    await close(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
