import Database from 'better-sqlite3';

/** A real better-sqlite3 SQLITE_FULL: an in-memory database allowed two pages, asked for more. */
export function sqliteFull(): Error {
  const db = new Database(':memory:');
  try {
    db.exec('CREATE TABLE t (v BLOB)');
    db.pragma('max_page_count = 2');
    db.prepare('INSERT INTO t VALUES (?)').run(Buffer.alloc(64 * 1024));
  } catch (err) {
    return err as Error;
  } finally {
    db.close();
  }
  throw new Error('the database did not fill up');
}
