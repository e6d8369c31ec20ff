import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadOrCreateInstanceId } from '../../src/edge/instance-id';
import { removeDir, tempDir } from './edge-kit';

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => removeDir(dir));

describe('loadOrCreateInstanceId', () => {
  it('creates instance.json owner-only on first start and keeps the id afterwards', () => {
    const id = loadOrCreateInstanceId(dir);
    const file = join(dir, 'instance.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ instance_id: id });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadOrCreateInstanceId(dir)).toBe(id);
  });

  it.each([
    ['empty (a write cut by a power loss)', '', 'empty'],
    ['not JSON', '{"instance_id": "a', 'not valid JSON (at position 18)'],
    ['without an id', '{"instance_id": 7}', 'no valid "instance_id" (a string of 1 to 64 characters)'],
  ])('refuses a file that is %s, naming the file and the way out, and leaves it alone', (_what, content, reason) => {
    const file = join(dir, 'instance.json');
    writeFileSync(file, content);
    expect(() => loadOrCreateInstanceId(dir)).toThrow(
      `${file}: ${reason}. The edge keeps its instance id there. Restore the file ({"instance_id":"<id>"}), ` +
        'or delete it to start as a new instance with a new id',
    );
    expect(readFileSync(file, 'utf8')).toBe(content);
  });
});
