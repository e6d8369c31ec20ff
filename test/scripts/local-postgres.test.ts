import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { durabilityLine, findPostgresBindir, startLocalPostgres } from '../../scripts/lib/local-postgres';

describe('the throwaway PostgreSQL', () => {
  it('finds Debian’s server binaries, and says what to install when there are none', () => {
    expect(existsSync(join(findPostgresBindir(), 'initdb'))).toBe(true);
    expect(() => findPostgresBindir({ pgConfig: '/nonexistent/pg_config', libRoot: '/nonexistent', path: '/nonexistent' })).toThrow(
      'install them with `apt-get install -y postgresql`',
    );
  });

  it('serves a database on a loopback port from a temp folder, survives a restart, and leaves nothing behind', async () => {
    const pg = await startLocalPostgres();
    try {
      expect(pg.url).toBe(`postgres://outpost@127.0.0.1:${pg.port}/outpost`);
      // As root, the cluster belongs to an unprivileged user: postgres refuses to run as root.
      if (process.getuid?.() === 0) expect(statSync(pg.dir).uid).not.toBe(0);
      const ask = async () => {
        const client = new Client({ connectionString: pg.url });
        await client.connect();
        try {
          return (await client.query<{ db: string; fsync: string }>("SELECT current_database() AS db, current_setting('fsync') AS fsync")).rows[0];
        } finally {
          await client.end();
        }
      };
      expect(await ask()).toEqual({ db: 'outpost', fsync: 'off' });
      await pg.restart({ immediate: true });
      expect(await ask()).toEqual({ db: 'outpost', fsync: 'off' });
    } finally {
      await pg.stop();
    }
    expect(existsSync(pg.dir)).toBe(false);
    const refused = new Client({ connectionString: pg.url, connectionTimeoutMillis: 1_000 });
    await expect(refused.connect()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  // The fast default loses acknowledged writes on a crash; --durable (npm run local-postgres and
  // npm run cluster) keeps PostgreSQL's own settings, and both say which at start.
  it('keeps PostgreSQL’s durability settings when durable, and says which mode it runs in', async () => {
    const settings = async (url: string) => {
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ name: string; setting: string }>(
          "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'full_page_writes', 'synchronous_commit') ORDER BY name",
        );
        return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
      } finally {
        await client.end();
      }
    };
    const durable = await startLocalPostgres({ durable: true });
    try {
      expect(await settings(durable.url)).toEqual({ fsync: 'on', full_page_writes: 'on', synchronous_commit: 'on' });
    } finally {
      await durable.stop();
    }
    const fast = await startLocalPostgres();
    try {
      expect(await settings(fast.url)).toEqual({ fsync: 'off', full_page_writes: 'off', synchronous_commit: 'off' });
    } finally {
      await fast.stop();
    }
    expect(durabilityLine(true)).toMatch(/^durable: /);
    expect(durabilityLine(false)).toMatch(/^NOT durable: .*a crash can lose acknowledged writes \(--durable keeps them\)$/);
  });
});
