import type { EdgeStatus } from '../../src/relay-protocol';
import type { RegistrationStore } from '../../src/relay/registration-store';
import { RegistrationWrites } from '../../src/relay/registration-writes';

const key = { tenantId: 'tenant-1', instanceId: 'edge-1' };
const status = (digest: string): EdgeStatus => ({ policy_name: 'rbac', policy_digest: `sha256:${digest.repeat(64)}`, directory_revision: 2 });

/** A registration store whose status writes finish only when the test says so, in order. */
function slowStatusStore() {
  const written: EdgeStatus[] = [];
  const waiting: (() => void)[] = [];
  const registrations = {
    updateStatus: (_key: unknown, s: EdgeStatus) =>
      new Promise<void>((resolve) => {
        waiting.push(() => {
          written.push(s);
          resolve();
        });
      }),
  } as unknown as RegistrationStore;
  const finishNext = () => waiting.shift()!();
  return { registrations, written, finishNext, pending: () => waiting.length };
}

/** Lets every settled promise's reactions run. */
const drain = () => new Promise((resolve) => setImmediate(resolve));

describe('RegistrationWrites.status', () => {
  it('makes a repeat of a status still being written wait for that write (a command result after the status frame it repeats)', async () => {
    const store = slowStatusStore();
    const writes = new RegistrationWrites((_what, _id, work) => work().then(() => true), store.registrations, () => 1000);
    let frameStored = false;
    let resultStored = false;
    void writes.status(key, status('a')).then(() => (frameStored = true));
    void writes.status(key, status('a')).then(() => (resultStored = true));
    await drain();
    expect(store.pending()).toBe(1); // one write for the two reports
    expect([frameStored, resultStored]).toEqual([false, false]);
    store.finishNext();
    await drain();
    expect([frameStored, resultStored]).toEqual([true, true]);
    expect(store.written).toEqual([status('a')]);
  });

  it('writes a changed status behind the one before it, and a status already stored costs nothing', async () => {
    const store = slowStatusStore();
    const writes = new RegistrationWrites((_what, _id, work) => work().then(() => true), store.registrations, () => 1000);
    writes.stored(status('a'));
    await expect(writes.status(key, status('a'))).resolves.toBeUndefined();
    expect(store.pending()).toBe(0);
    const b = writes.status(key, status('b'));
    await drain();
    store.finishNext();
    await b;
    expect(store.written).toEqual([status('b')]);
  });
});
