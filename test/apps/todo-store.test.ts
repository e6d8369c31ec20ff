import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTodoStore } from '../../src/apps/todo';

const mode = (file: string) => statSync(file).mode & 0o777;

describe('todo.db file mode', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-todo-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates todo.db and its -wal/-shm files owner-only (0600)', () => {
    const file = join(dir, 'todo.db');
    const store = openTodoStore(file);
    try {
      store.create('u1', 'a private todo');
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(mode(f)).toBe(0o600);
    } finally {
      store.close();
    }
  });

  it('narrows a todo.db and -wal left world-readable by an older build', () => {
    const file = join(dir, 'todo.db');
    openTodoStore(file).close();
    chmodSync(file, 0o644);
    writeFileSync(`${file}-wal`, '', { mode: 0o644 }); // an empty WAL, as a crash can leave
    chmodSync(`${file}-wal`, 0o644);
    const store = openTodoStore(file);
    try {
      for (const f of [file, `${file}-wal`]) expect(mode(f)).toBe(0o600);
    } finally {
      store.close();
    }
  });
});
