/**
 * `npm run decisions -- tail|why` (docs/reference/api.md, "Decision records") against a real
 * stack: the sidecar's records of a DELETE by Rick and one by Morty, read back as a terminal
 * shows them, with their reasons.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { USERS } from '../apps/app-fixture';
import { admin, callResource, waitFor } from '../integration/stack-client';
import { startStack, type Stack } from '../integration/stack-fixture';
import { compiled } from '../helpers/compiled';

const run = promisify(execFile);
const script = compiled('scripts/decisions.ts');
/** Several processes a test: generous, for a busy machine. */
const SLOW = 90_000;

let stack: Stack;
let mortyRequest: string;
beforeAll(async () => {
  stack = await startStack();
  const rick = await callResource(stack.appUrl, 'DELETE', 'mega-seed', (await stack.idp.token(USERS.rick.email)).access_token);
  const morty = await callResource(stack.appUrl, 'DELETE', 'mega-seed', (await stack.idp.token(USERS.morty.email)).access_token);
  expect([rick.status, morty.status]).toEqual([200, 403]);
  // Morty's request id, as the sidecar recorded it (the app's own X-Request-Id, passed on).
  const listed = await waitFor('both records', async () => {
    const reply = await admin(stack.relayUrl, stack.demo, 'GET', '/api/v2/admin/decisions?action=DELETE');
    const decisions = (reply.body as { decisions: { request_id: string; principal: { id: string } }[] }).decisions;
    return decisions.length >= 2 ? decisions : undefined;
  });
  mortyRequest = listed.find((d) => d.principal.id === USERS.morty.id)!.request_id;
  expect(mortyRequest).toBe(morty.headers.get('x-request-id'));
}, SLOW);
afterAll(async () => {
  await stack?.close();
});

async function decisions(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    OUTPOST_DATA_DIR: stack.dataDir,
    RELAY_URL: stack.relayUrl,
    OUTPOST_TENANT_ID: stack.demo.tenantId,
    OUTPOST_ADMIN_API_KEY: stack.demo.adminApiKey,
    LOG_LEVEL: 'silent',
  };
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

it(
  'why <request-id> prints the decision with the policies that determined it, or says there is none',
  async () => {
    const found = await decisions('why', mortyRequest);
    expect(found.code).toBe(0);
    expect(found.stdout).toContain(`request    ${mortyRequest}\n`);
    expect(found.stdout).toContain('decision   deny\n');
    expect(found.stdout).toContain(`principal  ${USERS.morty.id} (${USERS.morty.email})\n`);
    expect(found.stdout).toContain('resource   Resource:mega-seed\n');
    expect(found.stdout).toContain('why\n  no policy permits');
    const missing = await decisions('why', 'no-such-request');
    expect(missing).toEqual({ code: 1, stdout: '', stderr: expect.stringContaining('decisions why: no decision record with request id no-such-request') });
  },
  SLOW,
);

it(
  'tail --no-follow prints the latest matching decisions, one a line, with their reasons',
  async () => {
    const denies = await decisions('tail', '--no-follow', '--principal', USERS.morty.email, '--decision', 'deny');
    expect(denies.code).toBe(0);
    const lines = denies.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/DENY {3}morty@the-citadel\.com {2}DELETE Resource:mega-seed {2}— no policy permits {2}\(sidecar, request /);
    const all = await decisions('tail', '--no-follow', '--action', 'DELETE');
    expect(all.stdout).toContain('ALLOW  rick@the-citadel.com  DELETE Resource:mega-seed  — Admins may do everything, DELETE included. [rbac.cedar:19]');
    // Oldest first, as a terminal reads.
    expect(all.stdout.indexOf('rick@')).toBeLessThan(all.stdout.indexOf('morty@'));
  },
  SLOW,
);
