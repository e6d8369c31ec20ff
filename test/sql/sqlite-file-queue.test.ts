/**
 * Two handles on one SQLite file in one process (src/sql/open-sqlite-database.ts, `FileQueue`):
 * the control plane's own handle and the relay's registration handle. A statement on one while
 * a transaction of the other is open must wait its turn, not find the file locked: the lock's
 * holder needs the event loop the waiting statement blocks, so the wait could only end in
 * SQLITE_BUSY (as the relay's status write beside a stored batch of decisions did).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase, type SqlDatabase } from '../../src/sql';

let dir: string;
let file: string;
let main: SqlDatabase;
let relay: SqlDatabase;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-file-queue-'));
  file = join(dir, 'db.sqlite');
  main = await openSqliteDatabase(file);
  await main.exec('CREATE TABLE items (seq INTEGER PRIMARY KEY AUTOINCREMENT, who TEXT NOT NULL)');
  // As the relay opens its handle: a short busy timeout, for other processes' locks.
  relay = await openSqliteDatabase(file, { busyTimeoutMs: 50, fileMustExist: true });
});

afterEach(async () => {
  await relay.close();
  await main.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A promise and the function that settles it: the test decides when a transaction goes on. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const order = async () => (await main.all<{ who: string }>('SELECT who FROM items ORDER BY seq')).map((r) => r.who);

describe('handles on one SQLite file in one process', () => {
  it("a write on one handle while the other's transaction waits on I/O runs after its commit, not into SQLITE_BUSY", async () => {
    const { opened, open } = gate();
    const begun = gate();
    const transaction = main.transaction(async (tx) => {
      await tx.run("INSERT INTO items (who) VALUES ('transaction, first')");
      begun.open();
      await opened; // the transaction holds the file's write lock across this await
      await tx.run("INSERT INTO items (who) VALUES ('transaction, second')");
    });
    await begun.opened;
    const write = relay.run("INSERT INTO items (who) VALUES ('relay')");
    // Let the event loop turn while the transaction is open: the write has not run.
    await new Promise((resolve) => setImmediate(resolve));
    open();
    await expect(transaction).resolves.toBeUndefined();
    await expect(write).resolves.toEqual({ changes: 1 });
    expect(await order()).toEqual(['transaction, first', 'transaction, second', 'relay']);
  });

  it("a transaction on one handle waits for the other's, and both commit whole", async () => {
    const { opened, open } = gate();
    const first = main.transaction(async (tx) => {
      await tx.run("INSERT INTO items (who) VALUES ('main 1')");
      await opened;
      await tx.run("INSERT INTO items (who) VALUES ('main 2')");
    });
    const second = relay.transaction(async (tx) => {
      await tx.run("INSERT INTO items (who) VALUES ('relay 1')");
      await tx.run("INSERT INTO items (who) VALUES ('relay 2')");
    });
    await new Promise((resolve) => setImmediate(resolve));
    open();
    await Promise.all([first, second]);
    expect(await order()).toEqual(['main 1', 'main 2', 'relay 1', 'relay 2']);
  });

  it('closing one handle leaves the other working, and a handle opened after shares the queue again', async () => {
    await relay.close();
    await main.run("INSERT INTO items (who) VALUES ('after close')");
    relay = await openSqliteDatabase(file, { busyTimeoutMs: 50, fileMustExist: true });
    const { opened, open } = gate();
    const begun = gate();
    const transaction = main.transaction(async () => {
      begun.open();
      await opened;
    });
    await begun.opened;
    const write = relay.run("INSERT INTO items (who) VALUES ('reopened')");
    await new Promise((resolve) => setImmediate(resolve));
    open();
    await transaction;
    await expect(write).resolves.toEqual({ changes: 1 });
    expect(await order()).toEqual(['after close', 'reopened']);
  });

  it('separate files do not wait for each other', async () => {
    const other = await openSqliteDatabase(join(dir, 'other.sqlite'));
    try {
      await other.exec('CREATE TABLE t (n INTEGER)');
      const { opened, open } = gate();
      const transaction = main.transaction(async () => opened);
      // Resolves while the transaction on the other file is still open.
      await expect(other.run('INSERT INTO t (n) VALUES (1)')).resolves.toEqual({ changes: 1 });
      open();
      await transaction;
    } finally {
      await other.close();
    }
  });
});
