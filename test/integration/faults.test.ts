/**
 * Faults across the chain: the edge dying mid-command, the relay restarting, the
 * control plane down. Every test gets a fresh stack and sets up what it needs itself.
 */
import { USERS } from '../apps/app-fixture';
import { admin, callResource, exec, registrations, waitFor, type RegistrationView } from './stack-client';
import { startStack, type Stack } from './stack-fixture';

type User = keyof typeof USERS;

let stack: Stack;
const tokens = {} as Record<User, string>;

beforeEach(async () => {
  stack = await startStack();
  for (const user of Object.keys(USERS) as User[]) tokens[user] = (await stack.idp.token(USERS[user].email)).access_token;
});

afterEach(async () => {
  await stack?.close();
});

const run = (command: 'discovery' | 'sync_edge_directory') => exec(stack.relayUrl, stack.demo, stack.edge.instanceId, command);
const replyOf = (r: { status: number; body: unknown }) => ({ status: r.status, body: r.body });
const execOk = { status: 200, body: { result: {} } };
const DISCONNECTED = { code: 'instance_disconnected', message: 'the instance disconnected before confirming the command' };

/** Who may DELETE /resource/mega-seed through the RBAC app (the answer of each, exactly). */
async function deleters(): Promise<User[]> {
  const allowed: User[] = [];
  for (const user of Object.keys(USERS) as User[]) {
    const reply = await callResource(stack.appUrl, 'DELETE', 'mega-seed', tokens[user]);
    if (reply.status === 200 && reply.body === 'Hello from DELETE /resource/mega-seed') allowed.push(user);
    else expect(replyOf(reply)).toEqual({ status: 403, body: { code: 'forbidden', message: 'Forbidden by policy rbac.DELETE' } });
  }
  return allowed;
}

/**
 * Holds every policy-image download at the control plane: `arrived` resolves when the
 * edge is provably busy with a discovery run; `release()` lets the held requests through.
 */
function holdImageDownloads(): { arrived: Promise<void>; release(): void } {
  const held: (() => void)[] = [];
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  stack.hook = (req, _res, pass) => {
    if (!req.url?.startsWith('/api/v2/edge/policy-image')) return pass();
    held.push(pass);
    arrive();
  };
  return {
    arrived,
    release() {
      stack.hook = undefined;
      for (const pass of held.splice(0)) pass();
    },
  };
}

/** The primary edge's registration once it is connected (polled every 20 ms, at most 5 s). */
function connectedRegistration(): Promise<RegistrationView> {
  return waitFor('the edge to be registered and connected', async () => {
    const list = await registrations(stack.relayUrl, stack.demo);
    const mine = list.find((r) => r.id === stack.edge.instanceId);
    return mine?.info.connected ? mine : undefined;
  });
}

describe('faults across control plane, relay and edge', () => {
  it('the edge connection killed mid-command: exec answers 409 promptly; the edge comes back by itself', async () => {
    const hold = holdImageDownloads();
    try {
      const pending = run('discovery');
      await hold.arrived; // the command frame reached the edge, which is now downloading
      stack.dropRelayConnections(); // TCP gone without a closing handshake, as with a killed process
      // Promptly: a relay that waited for its deadline would answer 504 edge_timeout, not this 409.
      expect(replyOf(await pending)).toEqual({ status: 409, body: DISCONNECTED });
    } finally {
      hold.release();
    }
    const back = await connectedRegistration();
    expect(back.id).toBe(stack.edge.instanceId);
    expect(replyOf(await run('sync_edge_directory'))).toEqual(execOk);
  });

  it('the edge shut down mid-command: exec answers 409 promptly; then 409 instance_not_connected until it restarts', async () => {
    const instanceId = stack.edge.instanceId;
    const hold = holdImageDownloads();
    let stopping: Promise<void> | undefined;
    try {
      const pending = run('discovery');
      await hold.arrived;
      stopping = stack.edge.stop();
      // Promptly: waiting for the deadline would be 504 edge_timeout (see the first test).
      expect(replyOf(await pending)).toEqual({ status: 409, body: DISCONNECTED });
    } finally {
      hold.release();
      await stopping;
    }

    const [registration] = await registrations(stack.relayUrl, stack.demo);
    expect(registration).toMatchObject({ id: instanceId, info: { connected: false } });
    expect(replyOf(await run('discovery'))).toEqual({
      status: 409,
      body: { code: 'instance_not_connected', message: 'the instance is registered but not connected' },
    });

    await stack.restartEdge();
    expect(stack.edge.instanceId).toBe(instanceId);
    expect(replyOf(await run('discovery'))).toEqual(execOk);
    expect(await deleters()).toEqual(['rick']);
  });

  it('the relay restarted on the same port and database: the edge reconnects with the same id and exec works', async () => {
    const [before] = await registrations(stack.relayUrl, stack.demo);
    const relayUrl = stack.relayUrl;
    await stack.stopControlPlane();
    await stack.startControlPlane();
    expect(stack.relayUrl).toBe(relayUrl);

    const back = await connectedRegistration();
    expect(await registrations(stack.relayUrl, stack.demo)).toHaveLength(1);
    expect(back.id).toBe(before!.id);
    expect(Date.parse(back.info.connected_at)).toBeGreaterThan(Date.parse(before!.info.connected_at));

    // The whole loop works again: a central grant, the command, the changed decision.
    const grant = await admin(stack.relayUrl, stack.demo, 'PUT', `/api/v2/admin/directory/users/${USERS.summer.email}/roles/admin`);
    expect(replyOf(grant)).toEqual({ status: 200, body: { revision: 2 } });
    expect(await deleters()).toEqual(['rick']);
    expect(replyOf(await run('sync_edge_directory'))).toEqual(execOk);
    expect(await deleters()).toEqual(['rick', 'summer']);
  });

  it('the control plane down: the edge keeps answering, restarts from disk with the same id, and re-registers later', async () => {
    // Summer is an admin at the edge (revision 2): state the edge must keep through the outage.
    const grant = await admin(stack.relayUrl, stack.demo, 'PUT', `/api/v2/admin/directory/users/${USERS.summer.email}/roles/admin`);
    expect(replyOf(grant)).toEqual({ status: 200, body: { revision: 2 } });
    expect(replyOf(await run('sync_edge_directory'))).toEqual(execOk);
    const instanceId = stack.edge.instanceId;
    const status = stack.edge.edge.status();
    await stack.stopControlPlane();
    expect(await deleters()).toEqual(['rick', 'summer']);

    await stack.restartEdge({ waitUntilSynced: false });
    expect(stack.edge.instanceId).toBe(instanceId);
    const ready = await fetch(`${stack.edge.url}/readyz`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({ status: 200, body: { status: 'ready', policy: true, directory: true } });
    expect(stack.edge.edge.status()).toEqual(status);
    expect(stack.edge.edge.relayConnected).toBe(false);
    expect(await deleters()).toEqual(['rick', 'summer']);

    await stack.startControlPlane();
    const back = await connectedRegistration();
    expect(back).toMatchObject({ id: instanceId, info: { policy_digest: status.policy_digest, directory_revision: 2 } });
    expect(replyOf(await run('discovery'))).toEqual(execOk);
  });
});
