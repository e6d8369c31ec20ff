// Search pages take turns on the event loop (src/authzen/take-turns.ts): many searches asked at once
// no longer run back to back ahead of everything else, so an evaluation asked meanwhile waits for
// at most one page. Counted, not timed: how many pages finished before a callback queued with them ran.
import { join } from 'node:path';
import type { Edge } from '../../src/sidecar';
import { searchEdge } from '../../src/authzen/search-edge';
import { createTurns } from '../../src/authzen/take-turns';
import { readPolicyFolder } from '../../src/policy';
import { makeSyncedEdge, removeDir, tempDir } from './edge-kit';
import { root, startFakeControlPlane, type FakeControlPlane } from './fake-control-plane';

describe('createTurns', () => {
  it('runs each piece in its own event-loop turn, in order, and lets other callbacks in between', async () => {
    const take = createTurns();
    const done: string[] = [];
    const pieces = [1, 2, 3].map((n) =>
      take(() => {
        done.push(`piece ${n}`);
        // What a request arriving while a piece runs becomes: a callback for a later turn.
        if (n === 1) setImmediate(() => done.push('arrived during piece 1'));
      }),
    );
    await Promise.all(pieces);
    expect(done).toEqual(['piece 1', 'arrived during piece 1', 'piece 2', 'piece 3']);
  });

  it('goes on after a piece that throws', async () => {
    const take = createTurns();
    await expect(take(() => { throw new Error('boom'); })).rejects.toThrow('boom');
    await expect(take(() => 7)).resolves.toBe(7);
  });
});

describe('searches at an edge', () => {
  let cp: FakeControlPlane;
  let dir: string;
  let edge: Edge;
  beforeAll(async () => {
    cp = await startFakeControlPlane();
    cp.image = readPolicyFolder(join(root, 'policies', 'rebac'));
    dir = tempDir();
    ({ edge } = await makeSyncedEdge(cp.url, dir));
  });
  afterAll(async () => {
    await edge.close();
    await cp.close();
    removeDir(dir);
  });

  it('sixteen searches asked at once: a callback queued with them runs after at most one page', async () => {
    let pages = 0;
    const searches = Array.from({ length: 16 }, () =>
      searchEdge(edge, 'subject', { subject: { type: 'user' }, action: { name: 'GET' }, resource: { type: 'Resource', id: 'doc-1' } }).then(() => {
        pages += 1;
      }),
    );
    const pagesBefore = await new Promise<number>((resolve) => setImmediate(() => resolve(pages)));
    await Promise.all(searches);
    expect(pages).toBe(16);
    expect(pagesBefore).toBeLessThanOrEqual(1);
  });
});
