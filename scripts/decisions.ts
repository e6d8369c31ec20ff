// Reads the tenant's decision records through the control plane's admin API (admin key;
// docs/reference/api.md, "Decision records"): every edge ships what it decides, with why.
//
//   npm run decisions -- tail                          # the latest, then new ones as they come
//   npm run decisions -- tail --principal morty@the-citadel.com --decision deny
//   npm run decisions -- why <request-id>              # one decision with its reasons
//
// Credentials: OUTPOST_TENANT_ID + OUTPOST_ADMIN_API_KEY, else <data dir>/demo-tenant.json.
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../src/config';
import { callTenantApi } from './lib/call-tenant-api';
import { decisionBlock, decisionLine, type ListedDecision } from './lib/format-decision';
import { runScript } from './lib/run-script';
import { scriptCommand } from './lib/script-command';
import { ScriptError } from './lib/script-error';
import { loadTenantCredentials } from './lib/tenant-credentials';

const PATH = '/api/v2/admin/decisions';
/** How often `tail` asks for new records. */
const POLL_MS = 500;

interface TailOptions {
  principal?: string;
  decision?: string;
  action?: string;
  resource?: string;
  instance?: string;
  last: number;
  follow: boolean;
}

const credentials = () => loadTenantCredentials(loadConfig(), 'admin');

async function page(query: URLSearchParams): Promise<{ decisions: ListedDecision[]; next: number | null }> {
  return (await callTenantApi<{ decisions: ListedDecision[]; next: number | null }>(credentials(), { method: 'GET', path: `${PATH}?${query}` })).body;
}

function filters(options: TailOptions): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of ['principal', 'decision', 'action', 'resource', 'instance'] as const) {
    const value = options[name];
    if (value !== undefined) query.set(name, value);
  }
  return query;
}

async function tail(options: TailOptions): Promise<void> {
  const base = filters(options);
  const latest = await page(new URLSearchParams([...base, ['limit', String(options.last)]]));
  // Newest first from the API; a terminal reads oldest first.
  for (const d of [...latest.decisions].reverse()) console.log(decisionLine(d));
  if (!options.follow) return;
  let after = latest.decisions[0]?.id ?? 0;
  if (after === 0) {
    // Nothing matches yet: start after the newest record of any kind, so old ones are not replayed.
    after = (await page(new URLSearchParams([['limit', '1']]))).decisions[0]?.id ?? 0;
  }
  console.error(`following (every ${POLL_MS} ms; Ctrl-C stops)…`);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const next = await page(new URLSearchParams([...base, ['after', String(after)], ['limit', '500']]));
    for (const d of next.decisions) console.log(decisionLine(d));
    after = next.next ?? after;
  }
}

async function why(requestId: string): Promise<void> {
  const { decisions } = await page(new URLSearchParams([['request_id', requestId]]));
  if (decisions.length === 0) throw new ScriptError(`no decision record with request id ${requestId} (records reach the control plane within a second; older ones may have been trimmed)`);
  console.log(decisions.map(decisionBlock).join('\n\n'));
}

function count(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 500) throw new InvalidArgumentError('a number, 1–500');
  return n;
}

function answer(value: string): string {
  if (value !== 'allow' && value !== 'deny') throw new InvalidArgumentError('allow or deny');
  return value;
}

const program = scriptCommand(
  'npm run decisions --',
  "read the tenant's decision records — who was allowed or denied what, and why (<command> --help for each)",
  'npm run decisions -- tail --principal morty@the-citadel.com --decision deny',
);
program
  .command('tail')
  .description('print the latest decisions, oldest first, then follow new ones')
  .option('--principal <user>', 'only this user (id or e-mail)')
  .option('--decision <answer>', 'only allow or deny', answer)
  .option('--action <action>', 'only this action, e.g. DELETE')
  .option('--resource <resource>', 'only this resource id, or <type>:<id>')
  .option('--instance <id>', 'only decisions of this edge instance')
  .option('--last <n>', 'how many to print first (1–500)', count, 20)
  .option('--no-follow', 'print the latest and stop')
  .action((options: TailOptions) => runScript('decisions tail', () => tail(options)));
program
  .command('why')
  .argument('<request-id>', "the request's X-Request-Id")
  .description('print one decision with its reasons: the determining policies and their comments')
  .action((requestId: string) => runScript('decisions why', () => why(requestId)));
program.parseAsync().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
