import { clusterComponents } from '../../scripts/cluster';
import { loadConfig } from '../../src/config';
import { stackComponents, type Component } from '../../src/stack/components';

const engines = { databaseUrl: 'postgres://outpost@127.0.0.1:5999/outpost', redisUrl: 'redis://127.0.0.1:6999' };

/** A component without its probe function, which each stackComponents() call makes anew. */
const shape = (c: Component) => ({ ...c, identity: c.identity.path });

describe('clusterComponents', () => {
  const config = loadConfig({ CONTROL_PLANE_PORT: '9100' });

  it('replaces the control plane with N nodes on the ports after its own, in place', () => {
    const names = clusterComponents(config, 3, engines).map((c) => c.name);
    expect(names).toEqual(['idp', 'control-plane-1', 'control-plane-2', 'control-plane-3', 'edge', ...config.apps.list.map((app) => `${app.name}-app`)]);
  });

  it('keeps every other component exactly as the one-process stack has it, the IdP on the same PostgreSQL, waiting for every node', () => {
    const others = clusterComponents(config, 2, engines).filter((c) => !c.name.startsWith('control-plane-'));
    const single = stackComponents(config).filter((c) => c.name !== 'control-plane');
    const nodesFor = (c: Component) => (c.waitsFor === undefined ? {} : { waitsFor: c.waitsFor.flatMap((n) => (n === 'control-plane' ? ['control-plane-1', 'control-plane-2'] : [n])) });
    expect(others.map((c) => shape({ ...c, env: undefined }))).toEqual(single.map((c) => shape({ ...c, ...nodesFor(c) })));
    expect(others.find((c) => c.name === 'edge')?.waitsFor).toEqual(['control-plane-1', 'control-plane-2']);
    for (const component of others) expect(component.env).toEqual(component.name === 'idp' ? { DATABASE_URL: engines.databaseUrl } : undefined);
  });

  it('starts the first node after the IdP, and the others together once the first (which seeds the database) is ready', () => {
    const components = clusterComponents(config, 3, engines);
    expect(components.filter((c) => c.name.startsWith('control-plane-')).map((c) => c.waitsFor)).toEqual([undefined, ['control-plane-1'], ['control-plane-1']]);
    expect(components.map((c) => c.name).slice(0, 4)).toEqual(['idp', 'control-plane-1', 'control-plane-2', 'control-plane-3']);
  });

  it('names, places and configures each node', () => {
    const single = stackComponents(config).find((c) => c.name === 'control-plane')!;
    const nodes = clusterComponents(config, 3, engines).filter((c) => c.name.startsWith('control-plane-'));
    expect(nodes).toHaveLength(3);
    nodes.forEach((node, index) => {
      const i = index + 1;
      expect(node).toMatchObject({
        label: `control plane ${i}`,
        entry: single.entry,
        port: 9100 + i,
        url: `http://${config.host}:${9100 + i}`,
        portVar: 'CONTROL_PLANE_PORT',
        readyPath: single.readyPath,
      });
      expect(node.identity.path).toBe(single.identity.path);
      expect(node.env).toEqual({
        CONTROL_PLANE_PORT: String(9100 + i),
        RELAY_URL: 'http://localhost:9100', // the front, on the control plane's own port
        RELAY_NODE_ID: `node-${i}`,
        DATABASE_URL: engines.databaseUrl,
        REDIS_URL: engines.redisUrl,
      });
    });
  });

  it("gives the nodes the configured RELAY_URL, the front's public address", () => {
    const behindProxy = loadConfig({ CONTROL_PLANE_PORT: '9100', RELAY_URL: 'https://relay.example.test/' });
    const [node] = clusterComponents(behindProxy, 1, engines).filter((c) => c.name.startsWith('control-plane-'));
    expect(node?.port).toBe(9101);
    expect(node?.env?.RELAY_URL).toBe('https://relay.example.test');
  });
});
