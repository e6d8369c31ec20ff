// Child process for logger.test.ts: logs `count` lines through the real createLogger, then
// leaves the way argv[3] says — `exit` (process.exit at once, lines still buffered),
// `throw` (an uncaught error) or `stay` (alive until killed: only the timer can write).
import { createLogger } from '../../src/observability';

const count = Number(process.argv[2]);
const logger = createLogger('log-test', 'info');
for (let i = 0; i < count; i += 1) logger.info({ i, token: 'must-not-appear' }, 'line');
if (process.argv[3] === 'throw') throw new Error('fatal after logging');
if (process.argv[3] === 'stay') setTimeout(() => process.exit(3), 60_000);
else process.exit(0);
