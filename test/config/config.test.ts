import { join } from 'node:path';
import { findApp, loadConfig, ConfigError } from '../../src/config';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config.idp.port).toBe(5556);
    expect(config.idp.url).toBe('http://localhost:5556');
    expect(config.idp.issuer).toBe('http://localhost:5556');
    expect(findApp(config, 'rbac').port).toBe(3001);
    expect(config.controlPlane.port).toBe(8585);
    expect(config.edge.port).toBe(8383);
    expect(config.apps.authorizer).toBe('embedded');
    expect(config.dataDir).toMatch(/\.data$/);
  });

  it('keeps a PostgreSQL stack in its own data folder unless OUTPOST_DATA_DIR says otherwise', () => {
    const sqlite = loadConfig({});
    expect(sqlite.dataDirSource).toBe('default');
    const postgres = loadConfig({ DATABASE_URL: 'postgres://outpost@127.0.0.1:5432/outpost' });
    // Its demo tenant belongs to PostgreSQL: next to the SQLite stack's it would overwrite that one's only keys.
    expect(postgres.dataDir).toBe(join(sqlite.dataDir, 'postgres'));
    expect(postgres.dataDirSource).toBe('DATABASE_URL');
    const chosen = loadConfig({ DATABASE_URL: 'postgres://outpost@127.0.0.1:5432/outpost', OUTPOST_DATA_DIR: '/tmp/outpost-pg/' });
    expect(chosen.dataDir).toBe('/tmp/outpost-pg');
    expect(chosen.dataDirSource).toBe('OUTPOST_DATA_DIR');
    expect(loadConfig({ OUTPOST_DATA_DIR: 'state' }).dataDir).toBe(join(sqlite.projectRoot, 'state'));
    // The default written out, as a copied .env.example has it, is still the default.
    const copied = loadConfig({ DATABASE_URL: 'postgres://outpost@127.0.0.1:5432/outpost', OUTPOST_DATA_DIR: '.data' });
    expect([copied.dataDir, copied.dataDirSource]).toEqual([postgres.dataDir, 'DATABASE_URL']);
    expect(loadConfig({ OUTPOST_DATA_DIR: './.data/' }).dataDirSource).toBe('default');
  });

  it('returns a deeply frozen object', () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.idp)).toBe(true);
    expect(() => {
      (config.idp as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it('reads overrides and strips trailing slashes from URLs', () => {
    const config = loadConfig({ IDP_PORT: '6000', AUTH_URL: 'http://127.0.0.1:6000/', IDP_ISSUER: 'https://id.example/' });
    expect(config.idp.port).toBe(6000);
    expect(config.idp.url).toBe('http://127.0.0.1:6000');
    expect(config.idp.issuer).toBe('https://id.example');
  });

  it('moves each URL with its port unless the URL is set explicitly', () => {
    const moved = loadConfig({ IDP_PORT: '6556', RBAC_PORT: '3101', TODO_PORT: '3102', CONTROL_PLANE_PORT: '8686', EDGE_PORT: '8484' });
    expect(moved.idp.url).toBe('http://localhost:6556');
    expect(moved.idp.issuer).toBe('http://localhost:6556');
    expect(moved.apps.rbacUrl).toBe('http://localhost:3101');
    expect(moved.apps.todoUrl).toBe('http://localhost:3102');
    expect(moved.idp.corsOrigins).toEqual(['http://localhost:3102', 'http://localhost:8686']);
    expect(moved.controlPlane.url).toBe('http://localhost:8686');
    expect(moved.edge.url).toBe('http://localhost:8484');
    const proxied = loadConfig({ RBAC_PORT: '3101', APP_URL: 'https://rbac.example' });
    expect(proxied.apps.rbacUrl).toBe('https://rbac.example');
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ IDP_PORT: '' }).idp.port).toBe(5556);
  });

  it('reports every problem at once', () => {
    let error: unknown;
    try {
      loadConfig({ IDP_PORT: 'seventy', AUTH_URL: 'ftp://x', AUTHORIZER: 'magic', LOG_LEVEL: 'loud' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/IDP_PORT/);
    expect(problems.join('\n')).toMatch(/AUTH_URL/);
    expect(problems.join('\n')).toMatch(/AUTHORIZER/);
    expect(problems.join('\n')).toMatch(/LOG_LEVEL/);
  });

  it('rejects out-of-range ports', () => {
    expect(() => loadConfig({ RBAC_PORT: '70000' })).toThrow(/RBAC_PORT/);
  });
});

describe('IdP CORS origins', () => {
  it("default to the todo page's and the console's origins", () => {
    expect(loadConfig({}).idp.corsOrigins).toEqual(['http://localhost:3002', 'http://localhost:8585']);
    expect(loadConfig({ TODO_URL: 'http://127.0.0.1:4000/app', RELAY_URL: 'https://cp.test/outpost' }).idp.corsOrigins).toEqual([
      'http://127.0.0.1:4000',
      'https://cp.test',
    ]);
  });

  it('take a comma-separated list', () => {
    expect(loadConfig({ IDP_CORS_ORIGINS: 'http://a.test, http://b.test:81' }).idp.corsOrigins).toEqual([
      'http://a.test',
      'http://b.test:81',
    ]);
  });
});

describe('RBAC_POLICY', () => {
  it('follows the one policy-name rule the registry uses (rbac_v2 can be pushed, so it can be chosen)', () => {
    expect(loadConfig({ RBAC_POLICY: 'rbac_v2' }).apps.rbacPolicy).toBe('rbac_v2');
    expect(loadConfig({ RBAC_POLICY: '2fa' }).apps.rbacPolicy).toBe('2fa');
    expect(() => loadConfig({ RBAC_POLICY: 'Rbac' })).toThrow(/RBAC_POLICY/);
    expect(() => loadConfig({ RBAC_POLICY: '../rbac' })).toThrow(/RBAC_POLICY/);
  });
});

describe('durations', () => {
  it('are all seconds in Config, whatever unit the variable is written in', () => {
    const config = loadConfig({ RELAY_EXEC_TIMEOUT_MS: '2500', RELAY_HEARTBEAT_MS: '30000', ACCESS_TOKEN_TTL: '600', DISCOVERY_INTERVAL: '30' });
    expect(config.controlPlane.execTimeout).toBe(2.5);
    expect(config.controlPlane.heartbeat).toBe(30);
    expect(config.idp.accessTokenTtl).toBe(600);
    expect(config.edge.discoveryInterval).toBe(30);
  });

  it('STACK_START_TIMEOUT: the launcher waits 180 s by default for a component that keeps working, a whole number of seconds', () => {
    expect(loadConfig({}).stackStartTimeout).toBe(180);
    expect(loadConfig({ STACK_START_TIMEOUT: '900' }).stackStartTimeout).toBe(900);
    expect(() => loadConfig({ STACK_START_TIMEOUT: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ STACK_START_TIMEOUT: '1.5' })).toThrow(/STACK_START_TIMEOUT/);
  });
});

describe('RELAY_BARE_EXEC', () => {
  it('is off by default: exec and broadcast are Express routes alone (one path per request)', () => {
    expect(loadConfig({}).controlPlane.bareExec).toBe(false);
    expect(loadConfig({ RELAY_BARE_EXEC: 'off' }).controlPlane.bareExec).toBe(false);
  });

  it('turns the opt-in bare exec on with on, and refuses anything else', () => {
    expect(loadConfig({ RELAY_BARE_EXEC: 'on' }).controlPlane.bareExec).toBe(true);
    expect(() => loadConfig({ RELAY_BARE_EXEC: 'yes' })).toThrow(/RELAY_BARE_EXEC/);
  });
});

describe('METRICS_TOKEN', () => {
  it('is unset by default: no caller sees tenant ids in /metrics', () => {
    expect(loadConfig({}).controlPlane.metricsToken).toBeUndefined();
  });

  it('takes a bearer token of 32 or more b64token characters', () => {
    const token = 'kQ3v+Jx/0mYt9c2Rz8LwNp4aHs7eUb1FgDiVo6T5XyE=';
    expect(loadConfig({ METRICS_TOKEN: token }).controlPlane.metricsToken).toBe(token);
  });

  it.each([
    ['too short to guess safely', 'short-token-0123456789'],
    ['a space inside', 'abcdefghijklmnop qrstuvwxyz0123456789'],
    ['a character a bearer token cannot hold', 'abcdefghijklmnopqrstuvwxyz0123456789"'],
  ])('refuses a token %s, without echoing it', (_label, token) => {
    let error: unknown;
    try {
      loadConfig({ METRICS_TOKEN: token });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual(['METRICS_TOKEN: must be 32 to 512 characters of A-Z a-z 0-9 - . _ ~ + / (e.g. openssl rand -base64 32)']);
    expect((error as Error).message).not.toContain(token);
  });
});
