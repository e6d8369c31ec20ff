/**
 * The launcher's last step before "Outpost is up" (issue 19): every edge registered with the
 * relay, against a real control plane with its relay and real edges. A refused connection
 * is named at once with the way out, an accepted one that never registers after the wait,
 * and a refused Discovery API key as what would refuse the scripts too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoTenantPath, loadConfig, writeDemoTenantFile } from '../../src/config';
import { checkRegistrations, EdgesNotRegisteredError, listingCredentials } from '../../src/stack/check-registrations';
import type { StackEdge } from '../../src/stack/stack-edges';
import { startStack, type Stack } from '../integration/stack-fixture';

describe('checkRegistrations', () => {
  let stack: Stack;
  let foreignDir: string;
  beforeAll(async () => {
    stack = await startStack();
    await stack.startEdge(stack.appConnections.rbac);
    foreignDir = mkdtempSync(join(tmpdir(), 'outpost-foreign-'));
    // What a PostgreSQL stack left in a SQLite stack's folder: its own tenant and connections.
    writeDemoTenantFile(foreignDir, {
      tenant_id: 'their-tenant', discovery_api_key: 'dk_theirs', admin_api_key: 'ak_theirs', connection_id: 'their-conn', connection_secret: 'cs_theirs',
      auth_url: 'http://a', relay_url: 'http://r', app_url: 'http://p',
      control_plane: { engine: 'postgres', database: 'postgres://outpost:***@127.0.0.1:5432/outpost' },
    });
  });
  afterAll(async () => {
    await stack?.close();
    rmSync(foreignDir, { recursive: true, force: true });
  });

  const ours = () => loadConfig({ OUTPOST_DATA_DIR: stack.dataDir });
  const sidecar = (): StackEdge => ({
    label: 'the edge authorizer (sidecar)',
    connection: { ...stack.demo, source: demoTenantPath(stack.dataDir) },
    logFile: '/logs/edge.log',
  });
  const rbacEdge = (): StackEdge => ({
    label: "the RBAC app's embedded edge",
    connection: { ...stack.appConnections.rbac, source: demoTenantPath(stack.dataDir) },
    logFile: '/logs/rbac-app.log',
  });
  const failure = async (run: Promise<unknown>): Promise<string[]> => {
    try {
      await run;
    } catch (err) {
      expect(err).toBeInstanceOf(EdgesNotRegisteredError);
      expect((err as Error).message.split('\n')[0]).toBe('Outpost is not up: not every edge is registered with the relay. Stopping.');
      return [...(err as EdgesNotRegisteredError).lines];
    }
    throw new Error('expected the check to fail');
  };

  it('resolves with every edge once each has a connected registration', async () => {
    const config = ours();
    const listing = listingCredentials(config);
    expect(listing).toEqual({ tenantId: stack.demo.tenantId, discoveryApiKey: stack.demo.discoveryApiKey, source: demoTenantPath(stack.dataDir) });
    await expect(checkRegistrations({ config, controlPlane: stack.relayUrl, edges: [sidecar(), rbacEdge()], listing, timeoutMs: 5_000 })).resolves.toEqual([
      'the edge authorizer (sidecar)',
      "the RBAC app's embedded edge",
    ]);
  });

  it('names a refused edge at once, without waiting, with the file it read and the way out', async () => {
    const config = loadConfig({ OUTPOST_DATA_DIR: foreignDir });
    const file = demoTenantPath(foreignDir);
    const refused: StackEdge = { label: 'the edge authorizer (sidecar)', connection: { connectionId: 'their-conn', connectionSecret: 'cs_theirs', source: file }, logFile: '/logs/edge.log' };
    // The lines are the refusal's alone: waiting would have ended in 'did not register with the relay within 60 s'.
    const lines = await failure(checkRegistrations({ config, controlPlane: stack.relayUrl, edges: [sidecar(), refused], listing: listingCredentials(config), timeoutMs: 60_000 }));
    expect(lines).toEqual([
      `the edge authorizer (sidecar) is refused by the control plane (401): its connection their-conn, from ${file}, is unknown to it or its secret is wrong.`,
      `${file} does not belong to the SQLite control plane (${foreignDir}) (it names tenant their-tenant; it was written for the PostgreSQL control plane (postgres://outpost:***@127.0.0.1:5432/outpost)). ` +
        `Start with the database that file belongs to, or move ${foreignDir} aside (mv ${foreignDir} ${foreignDir}.old) and start again: the control plane then seeds a new demo tenant.`,
    ]);
  });

  it('says which variables to set when a refused connection came from them', async () => {
    const fromEnv: StackEdge = {
      label: "the todo app's embedded edge",
      connection: { connectionId: 'nope', connectionSecret: 'cs_nope', source: 'TODO_CONNECTION_ID and TODO_CONNECTION_SECRET' },
      logFile: '/logs/todo-app.log',
    };
    const config = ours();
    const lines = await failure(checkRegistrations({ config, controlPlane: stack.relayUrl, edges: [fromEnv], listing: listingCredentials(config), timeoutMs: 5_000 }));
    expect(lines[1]).toBe(
      `Set TODO_CONNECTION_ID and TODO_CONNECTION_SECRET to a connection of the SQLite control plane (${stack.dataDir}) (npm run tenants -- add-connection <tenant-id> --policy <policy>), or unset both to use the demo tenant file.`,
    );
  });

  it('names an accepted edge that does not register in time, with its log', async () => {
    // The todo app's connection is the demo tenant's, but no edge dials with it here.
    const silent: StackEdge = { label: "the todo app's embedded edge", connection: { ...stack.appConnections.todo, source: demoTenantPath(stack.dataDir) }, logFile: '/logs/todo-app.log' };
    const config = ours();
    const lines = await failure(checkRegistrations({ config, controlPlane: stack.relayUrl, edges: [sidecar(), silent], listing: listingCredentials(config), timeoutMs: 1_000 }));
    expect(lines).toEqual([`the todo app's embedded edge (connection ${stack.appConnections.todo.connectionId}) did not register with the relay within 1 s; see /logs/todo-app.log`]);
  });

  it('is not up when the relay refuses the Discovery API key the scripts would use', async () => {
    const config = ours();
    const stale = { ...listingCredentials(config)!, discoveryApiKey: 'dk_rotated_away' };
    const lines = await failure(checkRegistrations({ config, controlPlane: stack.relayUrl, edges: [sidecar()], listing: stale, timeoutMs: 5_000 }));
    expect(lines[0]).toBe(
      `the relay refused tenant ${stack.demo.tenantId}'s Discovery API key from ${demoTenantPath(stack.dataDir)} (401); the scripts, which use it, would be refused too.`,
    );
    expect(lines[1]).toContain('set both OUTPOST_TENANT_ID and OUTPOST_DISCOVERY_API_KEY');
  });
});
