import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { preparePrivateDatabase } from '../../files';

/** A todo as stored and as returned by the API. */
export interface Todo {
  readonly id: string;
  readonly title: string;
  readonly completed: boolean;
  /** Directory user id of the creator; the policy's ownership rules read it. */
  readonly owner_id: string;
  readonly created_at: string;
  readonly updated_at: string;
}

interface TodoRow {
  id: string;
  title: string;
  completed: number;
  owner_id: string;
  created_at: string;
  updated_at: string;
}

/** Persistence for the todo sample: one SQLite file (WAL), every write a single statement. */
export interface TodoStore {
  list(): Todo[];
  get(id: string): Todo | undefined;
  create(ownerId: string, title: string): Todo;
  /** Applies the given fields; `undefined` when the todo does not exist. */
  update(id: string, changes: { title?: string; completed?: boolean }): Todo | undefined;
  /** `true` when a todo was deleted. */
  remove(id: string): boolean;
  close(): void;
}

const toTodo = (row: TodoRow): Todo => ({ ...row, completed: row.completed === 1 });

/**
 * Opens (creating if needed) the todo database at `file`, owner-only (0600, with its
 * `-wal`/`-shm` files): todos are users' data. `:memory:` works for tests.
 */
export function openTodoStore(file: string, now: () => Date = () => new Date()): TodoStore {
  preparePrivateDatabase(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.exec(`CREATE TABLE IF NOT EXISTS todos (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    completed INTEGER NOT NULL DEFAULT 0 CHECK (completed IN (0, 1)),
    owner_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`);
  const selectAll = db.prepare<[], TodoRow>('SELECT * FROM todos ORDER BY created_at, id');
  const selectOne = db.prepare<[string], TodoRow>('SELECT * FROM todos WHERE id = ?');
  const insert = db.prepare('INSERT INTO todos (id, title, completed, owner_id, created_at, updated_at) VALUES (?, ?, 0, ?, ?, ?)');
  // One statement, so a change is applied whole or not at all.
  const patch = db.prepare<[string | null, number | null, string, string], TodoRow>(
    `UPDATE todos SET title = COALESCE(?, title), completed = COALESCE(?, completed), updated_at = ?
     WHERE id = ? RETURNING *`,
  );
  const del = db.prepare('DELETE FROM todos WHERE id = ?');

  return {
    list: () => selectAll.all().map(toTodo),
    get(id) {
      const row = selectOne.get(id);
      return row && toTodo(row);
    },
    create(ownerId, title) {
      const stamp = now().toISOString();
      const id = randomUUID();
      insert.run(id, title, ownerId, stamp, stamp);
      return { id, title, completed: false, owner_id: ownerId, created_at: stamp, updated_at: stamp };
    },
    update(id, changes) {
      const completed = changes.completed === undefined ? null : changes.completed ? 1 : 0;
      const row = patch.get(changes.title ?? null, completed, now().toISOString(), id);
      return row && toTodo(row);
    },
    remove: (id) => del.run(id).changes === 1,
    close: () => db.close(),
  };
}
