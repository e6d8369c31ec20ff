import { CLOSE_CODES, INSTANCE_REGISTRATIONS_PATH, REGISTRATIONS_PAGE } from '../../src/relay';
import { SQL_ENGINES } from '../helpers/sql-engines';
import { startRelayKit, type RelayKit } from './relay-kit';

interface Page {
  result: { id: string; info: { connected: boolean } }[];
  next_page_token?: string;
}

describe.each(SQL_ENGINES)('instance_registrations paging on $name', (engine) => {
  let kit: RelayKit;
  beforeAll(async () => {
    kit = await startRelayKit({ engine });
    // Registrations of disconnected edges are kept, so a few sockets make many rows.
    for (let i = 0; i < 7; i++) await (await kit.edge(kit.a, { instanceId: `edge-${i}` })).close();
    await kit.edge(kit.b, { instanceId: 'edge-b' });
  });
  afterAll(() => kit.stop());

  const page = async (query: string) => {
    const res = await kit.call(`${INSTANCE_REGISTRATIONS_PATH}${query}`);
    return { status: res.status, body: (await res.json()) as Page };
  };

  it('keeps the §4.3 shape when everything fits on the default page', async () => {
    const { status, body } = await page('');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['result']);
    expect(body.result.map((r) => r.id)).toEqual(['edge-0', 'edge-1', 'edge-2', 'edge-3', 'edge-4', 'edge-5', 'edge-6']);
    expect(REGISTRATIONS_PAGE.defaultSize).toBeGreaterThan(7);
  });

  it('walks every registration of the tenant exactly once with page_size and page_token', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const { status, body } = await page(`?page_size=3${token ? `&page_token=${token}` : ''}`);
      expect(status).toBe(200);
      expect(body.result.length).toBeLessThanOrEqual(3);
      seen.push(...body.result.map((r) => r.id));
      token = body.next_page_token;
      pages += 1;
    } while (token !== undefined && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(['edge-0', 'edge-1', 'edge-2', 'edge-3', 'edge-4', 'edge-5', 'edge-6']);
  });

  it.each([
    ['page_size=0', 'page_size must be an integer from 1 to 1000'],
    ['page_size=1001', 'page_size must be an integer from 1 to 1000'],
    ['page_size=abc', 'page_size must be an integer from 1 to 1000'],
    ['page_size=1&page_size=2', 'page_size must be an integer from 1 to 1000'],
    ['page_token=%00%01', 'page_token is not a token this endpoint issued'],
    [`page_token=${Buffer.from('bad id\u202E').toString('base64url')}`, 'page_token is not a token this endpoint issued'],
  ])('answers 400 for %s', async (query, message) => {
    const { status, body } = await page(`?${query}`);
    expect(status).toBe(400);
    expect(body).toEqual({ code: 'bad_request', message });
  });
});

describe('releasing an instance id', () => {
  let kit: RelayKit;
  beforeEach(async () => {
    kit = await startRelayKit();
  });
  afterEach(() => kit.stop());

  const release = (id: string, tenant = kit.a) =>
    fetch(`${kit.url}${INSTANCE_REGISTRATIONS_PATH}/${encodeURIComponent(id)}`, {
      method: 'DELETE',
      headers: { 'service-tenant-id': tenant.tenantId, authorization: `basic ${tenant.discoveryApiKey}` },
    });

  it('lets another connection of the tenant take a released id, and not before', async () => {
    const old = await kit.edge(kit.a, { instanceId: 'moving-edge' });
    expect((await release('moving-edge')).status).toBe(409);
    await old.close();
    const other = await kit.store.tenants.addConnection(kit.a.tenantId, 'rbac');
    const creds = { ...kit.a, connectionId: other.connectionId, secret: other.connectionSecret };
    const refused = await kit.edge(creds, { register: false, instanceId: 'moving-edge' });
    refused.sendJson({ type: 'register', instance_id: 'moving-edge', hostname: 'h', version: '1', status: { policy_name: 'rbac', policy_digest: null, directory_revision: 0 } });
    expect((await refused.closed).code).toBe(CLOSE_CODES.instanceBound);

    const res = await release('moving-edge');
    expect(res.status).toBe(204);
    const moved = await kit.edge(creds, { instanceId: 'moving-edge' });
    await expect(kit.relay.exec(kit.a.tenantId, 'moving-edge', 'discovery')).resolves.toBeDefined();
    expect(moved.commands).toHaveLength(1);
  });

  it('answers 404 for an unknown id and for another tenant\'s id, 401 without the key', async () => {
    await (await kit.edge(kit.b, { instanceId: 'b-edge' })).close();
    expect(await (await release('nobody')).json()).toEqual({ code: 'instance_not_found', message: 'no instance with this id is registered for the tenant' });
    expect((await release('b-edge')).status).toBe(404);
    const anonymous = await fetch(`${kit.url}${INSTANCE_REGISTRATIONS_PATH}/b-edge`, { method: 'DELETE' });
    expect(anonymous.status).toBe(401);
  });
});
