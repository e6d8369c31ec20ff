import { Client } from 'pg';
import { startLocalPostgres, type LocalPostgres } from '../../scripts/lib/local-postgres';

/** What a test file gets from {@link usePostgres}. */
export interface TestPostgres {
  /** The file's server (after `beforeAll`), for `restart()` and `shutdown()`. */
  server(): LocalPostgres;
  /** The URL of a new, empty database on the file's server, so tests stay independent. */
  freshDatabase(): Promise<string>;
}

/**
 * One throwaway PostgreSQL per test file: started in `beforeAll`, stopped (and its folder
 * removed) in `afterAll`. Call at the top level of a test file.
 */
export function usePostgres(): TestPostgres {
  let server: LocalPostgres | undefined;
  let count = 0;
  beforeAll(async () => {
    server = await startLocalPostgres();
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });
  const running = (): LocalPostgres => {
    if (!server) throw new Error('usePostgres(): the server starts in beforeAll');
    return server;
  };
  return {
    server: running,
    async freshDatabase() {
      count += 1;
      const name = `test_${count}`;
      const admin = new Client({ connectionString: running().urlFor('postgres') });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return running().urlFor(name);
    },
  };
}
