// What one sidecar decision costs in this process, piece by piece, without HTTP: the
// JSON parse, the zod schema, the (cached) decision and the decision log line.
import { pino } from 'pino';
import { openLocalAuthorizer } from '../../../src/authorizer';
import { isRequestSchema } from '../../../src/decision-protocol';
import type { DirectoryData } from '../../../src/directory';

const ITERATIONS = 200_000;

/** Mean µs of `iterations` runs of `run`, after a warm-up of a tenth as many. */
function meanMicros(run: (i: number) => unknown): number {
  for (let i = 0; i < ITERATIONS / 10; i += 1) run(i);
  const started = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i += 1) run(i);
  return Number(process.hrtime.bigint() - started) / ITERATIONS / 1000;
}

/** Mean µs per piece of the `is` handler, each measured alone. */
export function measureHandlerCosts(options: { policiesDir: string; directory: DirectoryData; principal: string; body: string }): Record<string, number> {
  const authorizer = openLocalAuthorizer({ policiesDir: options.policiesDir, policyName: 'rbac', directory: options.directory });
  // The deployed logger's shape: redaction on, buffered asynchronous writes (here to /dev/null).
  const logger = pino({ redact: { paths: ['password', 'token', '*.token', 'secret'], remove: true } }, pino.destination({ dest: '/dev/null', sync: false, minLength: 4096 }));
  const parsed = JSON.parse(options.body) as unknown;
  const request = { principal: options.principal, action: 'DELETE', resource: { type: 'Resource', id: 'mega-seed' }, policyPath: 'rbac.DELETE' };
  try {
    return {
      'JSON.parse of the body': meanMicros(() => JSON.parse(options.body)),
      'zod schema (isRequestSchema)': meanMicros(() => isRequestSchema.safeParse(parsed)),
      'decision (cached)': meanMicros(() => authorizer.decideNow(request)),
      'decision log line (pino, redaction, buffered)': meanMicros((i) =>
        logger.info({ req_id: `r${i}`, principal: options.principal, path: 'rbac.DELETE', resource: { type: 'Resource', id: 'mega-seed' }, decision: true, policy_digest: 'sha256:0', directory_revision: 1 }, 'decision'),
      ),
    };
  } finally {
    void authorizer.close();
  }
}
