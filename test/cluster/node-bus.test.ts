import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { HttpError } from '../../src/http';
import { httpFailure } from '../helpers/http-failure';
import { silentLogger } from '../../src/observability';
import { startNodeBus, tooManyInFlight, MAX_BUS_REPLY_BYTES, type BusRequest, type NodeBus, type NodeBusOptions } from '../../src/cluster';
import { useLocalRedis, waitUntil } from '../helpers/redis';

const local = useLocalRedis();
let client: Redis;
let prefix: string;
let tests = 0;
const buses: NodeBus[] = [];

beforeAll(async () => {
  client = await local.connect('bus-test');
});
beforeEach(() => {
  tests += 1;
  prefix = `b${tests}:`;
});
afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.close()));
});

async function bus(node: string, options: Partial<NodeBusOptions> = {}): Promise<NodeBus> {
  const started = await startNodeBus({ redis: client, node, logger: silentLogger(), prefix, ...options });
  buses.push(started);
  return started;
}

const exec = { kind: 'exec', tenant: 'tenant-1', instance: 'edge-1', command: 'discovery' } as const;


function answer(err: HttpError) {
  return { status: err.status, code: err.code, message: err.message, headers: err.headers };
}

/** A deferred the tests settle by hand, to hold requests in flight. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('node bus', () => {
  it('carries a request to the target node and its result back', async () => {
    const a = await bus('node-a');
    const b = await bus('node-b');
    const seen: BusRequest[] = [];
    b.onRequest(async (request) => {
      seen.push(request);
      return { status: 'ok', echo: request.command };
    });
    await expect(a.request('node-b', exec, 5000)).resolves.toEqual({ status: 'ok', echo: 'discovery' });
    expect(seen).toEqual([expect.objectContaining({ type: 'request', from: 'node-a', kind: 'exec', tenant: 'tenant-1', instance: 'edge-1', command: 'discovery' })]);
    expect(a.inFlight).toBe(0);
  });

  it("re-throws the owner's error with the same status, code, message and headers", async () => {
    const a = await bus('node-a');
    const b = await bus('node-b');
    const thrown: HttpError[] = [
      new HttpError(404, 'instance_not_found', 'no instance with this id is registered for the tenant'),
      new HttpError(409, 'instance_not_connected', 'the instance is registered but not connected'),
      new HttpError(502, 'policy_tests_failed', '2 test cases failed'),
      new HttpError(429, 'too_many_pending', 'too many commands are waiting for this instance', { 'Retry-After': '1' }),
      new HttpError(504, 'edge_timeout', 'the edge did not confirm the command within 50 ms'),
    ];
    let next = 0;
    b.onRequest(async () => {
      throw thrown[next++];
    });
    for (const err of thrown) {
      expect(answer(await httpFailure(a.request('node-b', exec, 5000)))).toEqual(answer(err));
    }
  });

  it('answers a bug in the handler, or a code outside the contract, as a plain 500', async () => {
    const a = await bus('node-a');
    const b = await bus('node-b');
    let next = 0;
    b.onRequest(async () => {
      if (next++ === 0) throw new TypeError('secret detail');
      throw new HttpError(418, 'teapot', 'no');
    });
    const internal = { status: 500, code: 'server_error', message: 'internal error', headers: {} };
    expect(answer(await httpFailure(a.request('node-b', exec, 5000)))).toEqual(internal);
    expect(answer(await httpFailure(a.request('node-b', exec, 5000)))).toEqual(internal);
  });

  it('keeps an unlisted edge failure code out of a 502 (edge_error instead)', async () => {
    const a = await bus('node-a');
    const b = await bus('node-b');
    b.onRequest(async () => {
      throw new HttpError(502, 'made_up_code', 'the edge failed');
    });
    expect(answer(await httpFailure(a.request('node-b', exec, 5000)))).toEqual({ status: 502, code: 'edge_error', message: 'the edge failed', headers: {} });
  });

  it('times out with 504 edge_timeout when the owner does not answer in time', async () => {
    const a = await bus('node-a');
    const b = await bus('node-b');
    const held = gate();
    b.onRequest(() => held.promise);
    const err = await httpFailure(a.request('node-b', exec, 100));
    held.open();
    expect(answer(err)).toEqual({ status: 504, code: 'edge_timeout', message: 'the edge did not confirm the command within 100 ms', headers: {} });
    expect(a.inFlight).toBe(0);
  });

  it('fails at once with 409 instance_not_connected when no node listens (dead or gone), not after the timeout', async () => {
    const a = await bus('node-a');
    const b = await bus('node-b');
    const notConnected = { status: 409, code: 'instance_not_connected', message: 'the instance is registered but not connected', headers: {} };
    // A timeout far beyond the test's own: only an immediate answer passes.
    expect(answer(await httpFailure(a.request('node-gone', exec, 600_000)))).toEqual(notConnected);
    await b.close();
    expect(answer(await httpFailure(a.request('node-b', exec, 600_000)))).toEqual(notConnected);
  });

  it('answers 409 while the node has no handler yet', async () => {
    const a = await bus('node-a');
    await bus('node-b');
    expect((await httpFailure(a.request('node-b', exec, 5000))).code).toBe('instance_not_connected');
  });

  it('refuses a request beyond its in-flight cap with 429 and Retry-After', async () => {
    const a = await bus('node-a', { maxInFlight: 2 });
    const b = await bus('node-b');
    const held = gate();
    b.onRequest(async () => {
      await held.promise;
      return 'done';
    });
    const first = a.request('node-b', exec, 5000);
    const second = a.request('node-b', exec, 5000);
    expect(answer(await httpFailure(a.request('node-b', exec, 5000)))).toEqual(answer(tooManyInFlight()));
    held.open();
    await expect(Promise.all([first, second])).resolves.toEqual(['done', 'done']);
  });

  it('answers 429 to requests beyond what it handles at once for other nodes', async () => {
    const a = await bus('node-a');
    const b = await bus('node-b', { maxInFlight: 1 });
    const held = gate();
    let calls = 0;
    b.onRequest(async () => {
      calls += 1;
      await held.promise;
      return 'done';
    });
    const first = a.request('node-b', exec, 5000);
    await waitUntil('the first request is being handled', () => calls === 1);
    expect(answer(await httpFailure(a.request('node-b', exec, 5000)))).toEqual(answer(tooManyInFlight()));
    held.open();
    await expect(first).resolves.toBe('done');
    expect(calls).toBe(1);
  });

  it('routes a reply as large as a decision sample (over the 64 KiB request cap)', async () => {
    const a = await bus('node-a');
    const b = await bus('node-b');
    const blob = 'x'.repeat(4 * 1024 * 1024);
    b.onRequest(async () => ({ blob }));
    await expect(a.request('node-b', exec, 5000)).resolves.toEqual({ blob });
  });

  it('answers 502 when the result is too large to route', async () => {
    const a = await bus('node-a');
    const b = await bus('node-b');
    b.onRequest(async () => ({ blob: 'x'.repeat(MAX_BUS_REPLY_BYTES) }));
    expect(answer(await httpFailure(a.request('node-b', exec, 5000)))).toEqual({
      status: 502,
      code: 'edge_error',
      message: 'the answer is too large to route between nodes',
      headers: {},
    });
  });

  it('drops junk on its inbox, logs it, and keeps serving', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const a = await bus('node-a');
    const b = await bus('node-b', { logger: pino({ level: 'warn' }, sink) });
    let calls = 0;
    b.onRequest(async () => {
      calls += 1;
      return 'ok';
    });
    const inbox = `${prefix}node:node-b:inbox`;
    const valid = { type: 'request', id: '0b6f3f4e-8c1d-4a57-9d0e-3f5a1b2c4d6e', from: 'node-a', kind: 'exec', tenant: 't', instance: 'i', command: 'discovery' };
    const junk = [
      'not json',
      '{"type":"request"',
      JSON.stringify({ ...valid, kind: 'exec', command: undefined }),
      JSON.stringify({ ...valid, from: 'node a' }),
      JSON.stringify({ ...valid, extra: true }),
      // A try carries a tried decision and no command; nothing else carries one.
      JSON.stringify({ ...valid, kind: 'try', command: undefined }),
      JSON.stringify({ ...valid, request: { principal: 'p', action: 'a', resource: { type: 't', id: 'i' } } }),
      JSON.stringify({ type: 'reply', id: valid.id, ok: true, result: 1 }),
      // A valid request padded past 64 KiB: dropped for its size alone.
      JSON.stringify(valid, null, 70 * 1024).replace(/\n/g, ' '.repeat(11_000)),
      Buffer.from([0xff, 0xfe, 0x00]),
    ];
    for (const message of junk) expect(await client.publish(inbox, message)).toBe(1);
    await expect(a.request('node-b', exec, 5000)).resolves.toBe('ok');
    expect(calls).toBe(1);
    await waitUntil('a drop was logged', () => lines.some((line) => line.includes('bus message dropped')));
  });

  it('refuses a bad node id and a bad cap at start, and requests after close', async () => {
    await expect(startNodeBus({ redis: client, node: 'bad node', logger: silentLogger(), prefix })).rejects.toThrow(/node id/);
    await expect(startNodeBus({ redis: client, node: 'node-a', logger: silentLogger(), prefix, maxInFlight: 0 })).rejects.toThrow(/maxInFlight/);
    const a = await bus('node-a');
    await a.close();
    expect((await httpFailure(a.request('node-b', exec, 5000))).code).toBe('relay_closing');
  });
});
