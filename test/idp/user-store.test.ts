import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openUserStore } from '../../src/idp';

describe('users.json damaged', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-users-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['empty (a write cut by a power loss)', '', 'empty'],
    ['not JSON', '{"version":1,"users":[', 'not valid JSON (ends too early)'],
    ['not a users file', '{"version":2}', 'not a valid users file'],
  ])('stops the IdP when the file is %s, naming it and the way out, and leaves it alone', async (_what, content, reason) => {
    const file = join(dir, 'users.json');
    writeFileSync(file, content);
    await expect(openUserStore(file, [], 'unused')).rejects.toThrow(
      `${file}: ${reason}. It holds the users' password hashes: restore it, or delete it and start again ` +
        "to derive the seeded users' hashes anew from the demo password.",
    );
    expect(readFileSync(file, 'utf8')).toBe(content);
  });
});
