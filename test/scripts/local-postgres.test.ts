import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { findPostgresBindir, startLocalPostgres } from '../../scripts/lib/local-postgres';

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
});
