import { pino } from 'pino';
import {
  createRateLimitedLog,
  FAILURE_LOG_MAX_KINDS,
  FAILURE_LOG_WINDOW_MS,
  OTHER_KIND,
  thrownName,
  type RateLimitedLogOptions,
} from '../../src/observability/rate-limited-log';

/** A real pino logger writing into an array, and a clock the test steps. */
function build(options: Omit<RateLimitedLogOptions, 'now'> = {}) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const clock = { now: 1_000_000 };
  const log = createRateLimitedLog(logger, { ...options, now: () => clock.now });
  return { log, lines, clock };
}

describe('createRateLimitedLog', () => {
  it('logs the first failure of a kind and only counts the rest within the minute', () => {
    const { log, lines, clock } = build();
    for (let i = 0; i < 5; i += 1) {
      log.write('error', 'TypeError', { req_id: `r${i}` }, 'decision failed');
      clock.now += 1_000;
    }
    expect(lines).toEqual([expect.objectContaining({ level: 50, msg: 'decision failed', req_id: 'r0', kind: 'TypeError', suppressed: 0 })]);
  });

  it('says how many were suppressed on the first line after the window', () => {
    const { log, lines, clock } = build();
    log.write('error', 'TypeError', { req_id: 'first' }, 'decision failed');
    for (let i = 0; i < 3; i += 1) log.write('error', 'TypeError', {}, 'decision failed');
    clock.now += FAILURE_LOG_WINDOW_MS - 1;
    log.write('error', 'TypeError', {}, 'decision failed');
    expect(lines).toHaveLength(1);
    clock.now += 1;
    log.write('error', 'TypeError', { req_id: 'next' }, 'decision failed');
    expect(lines.map((l) => [l.req_id, l.suppressed])).toEqual([['first', 0], ['next', 4]]);
    // The count starts again with the new window.
    clock.now += FAILURE_LOG_WINDOW_MS;
    log.write('error', 'TypeError', { req_id: 'quiet' }, 'decision failed');
    expect(lines[2]).toMatchObject({ req_id: 'quiet', suppressed: 0 });
  });

  it('keeps a window per kind, at the level asked for', () => {
    const { log, lines } = build();
    log.write('error', 'a TypeError', {}, 'one');
    log.write('warn', 'b RangeError', {}, 'two');
    log.write('error', 'a TypeError', {}, 'one again');
    expect(lines.map((l) => [l.kind, l.level, l.msg])).toEqual([['a TypeError', 50, 'one'], ['b RangeError', 40, 'two']]);
  });

  it(`remembers at most ${FAILURE_LOG_MAX_KINDS} kinds by default; beyond them, new kinds share "${OTHER_KIND}"`, () => {
    const { log, lines } = build();
    for (let i = 0; i < FAILURE_LOG_MAX_KINDS + 50; i += 1) log.write('error', `junk-${i}`, {}, 'failed');
    expect(lines).toHaveLength(FAILURE_LOG_MAX_KINDS + 1);
    expect(lines.at(-1)).toMatchObject({ kind: OTHER_KIND, suppressed: 0 });
    // Kinds already remembered keep their own window.
    log.write('error', 'junk-0', {}, 'failed');
    expect(lines).toHaveLength(FAILURE_LOG_MAX_KINDS + 1);
  });

  it('counts the kinds beyond the bound under "other" and reports them after the window', () => {
    const { log, lines, clock } = build({ maxKinds: 2 });
    log.write('error', 'a', {}, 'failed');
    log.write('error', 'b', {}, 'failed');
    // A's and B's windows hold a count, so neither may be forgotten.
    log.write('error', 'a', {}, 'failed');
    log.write('error', 'b', {}, 'failed');
    log.write('error', 'c', {}, 'failed');
    log.write('error', 'd', {}, 'failed');
    log.write('error', 'e', {}, 'failed');
    expect(lines.map((l) => l.kind)).toEqual(['a', 'b', OTHER_KIND]);
    clock.now += FAILURE_LOG_WINDOW_MS;
    log.write('error', 'f', {}, 'failed');
    expect(lines.at(-1)).toMatchObject({ kind: OTHER_KIND, suppressed: 2 });
  });

  it('forgets a kind whose window ended with nothing counted, to make room', () => {
    const { log, lines, clock } = build({ maxKinds: 2 });
    log.write('error', 'a', {}, 'failed');
    log.write('error', 'b', {}, 'failed');
    clock.now += FAILURE_LOG_WINDOW_MS;
    log.write('error', 'c', {}, 'failed');
    expect(lines.map((l) => l.kind)).toEqual(['a', 'b', 'c']);
  });

  it('never throws, even when the logger does', () => {
    const logger = pino({ level: 'info' }, {
      write: () => {
        throw new Error('disk full');
      },
    });
    const log = createRateLimitedLog(logger);
    expect(() => log.write('error', 'TypeError', {}, 'decision failed')).not.toThrow();
  });

  it('refuses a window or a bound that would disable it', () => {
    const logger = pino({ level: 'silent' });
    expect(() => createRateLimitedLog(logger, { windowMs: 0 })).toThrow(TypeError);
    expect(() => createRateLimitedLog(logger, { maxKinds: 0 })).toThrow(TypeError);
    expect(() => createRateLimitedLog(logger, { maxKinds: 1.5 })).toThrow(TypeError);
  });
});

describe('thrownName', () => {
  it('names an Error by its name and anything else by its type, never by its text', () => {
    expect(thrownName(new TypeError('secret text'))).toBe('TypeError');
    expect(thrownName(Object.assign(new Error('x'), { name: 'N'.repeat(500) }))).toBe('N'.repeat(64));
    expect(thrownName(Object.assign(new Error('x'), { name: '' }))).toBe('Error');
    expect(thrownName('Bearer eyJ...')).toBe('string');
    expect(thrownName(undefined)).toBe('undefined');
    expect(thrownName(null)).toBe('null');
    expect(thrownName({ message: 'x' })).toBe('object');
  });

  it('survives a name getter that throws', () => {
    const hostile = new Error('x');
    Object.defineProperty(hostile, 'name', {
      get() {
        throw new Error('gotcha');
      },
    });
    expect(thrownName(hostile)).toBe('Error');
  });
});
