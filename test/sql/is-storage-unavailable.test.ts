import { isStorageFull, isStorageUnavailable, SqlConnectionError } from '../../src/sql';

function withCode(code: unknown): Error {
  return Object.assign(new Error('x'), { code });
}

describe('isStorageUnavailable', () => {
  it.each(['SQLITE_BUSY', 'SQLITE_READONLY', 'SQLITE_IOERR_WRITE'])('SQLite %s', (code) => {
    expect(isStorageUnavailable(withCode(code))).toBe(true);
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'])('socket %s', (code) => {
    expect(isStorageUnavailable(withCode(code))).toBe(true);
  });

  it.each([
    ['08006', 'connection failure'],
    ['08001', 'cannot establish a connection'],
    ['53300', 'too many connections'],
    ['53200', 'out of memory'],
    ['57P01', 'admin shutdown'],
    ['57P02', 'crash shutdown'],
    ['57P03', 'cannot connect now (starting up)'],
    ['40001', 'serialization failure'],
    ['40P01', 'deadlock detected'],
    ['55P03', 'lock not available (lock_timeout)'],
    ['57014', 'query cancelled (statement_timeout)'],
    ['25P03', 'idle in transaction session timeout'],
  ])('PostgreSQL SQLSTATE %s (%s)', (code) => {
    expect(isStorageUnavailable(withCode(code))).toBe(true);
  });

  it('a dropped connection the driver gave no code', () => {
    expect(isStorageUnavailable(new SqlConnectionError('lost', { cause: new Error('Connection terminated unexpectedly') }))).toBe(true);
  });

  it.each([
    ['23505', 'unique violation'],
    ['23503', 'foreign key violation'],
    ['42P01', 'undefined table'],
    ['42601', 'syntax error'],
    ['22003', 'numeric value out of range'],
    ['57P04', 'database dropped'],
    ['25P02', 'in failed transaction'],
    ['ENOENT', 'a missing file'],
    ['ERR_INVALID_ARG_TYPE', 'a programming error'],
  ])('not %s (%s): the request or the code is wrong, retrying will not help', (code) => {
    expect(isStorageUnavailable(withCode(code))).toBe(false);
  });

  it.each([
    ['no code', new Error('Connection terminated unexpectedly')],
    ['a numeric code', withCode(8006)],
    ['a lower-case SQLSTATE look-alike', withCode('08abc')],
    ['undefined', undefined],
    ['null', null],
    ['a string', 'SQLITE_BUSY'],
  ])('not %s', (_label, err) => {
    expect(isStorageUnavailable(err)).toBe(false);
  });
});

describe('isStorageFull', () => {
  it.each(['SQLITE_FULL', '53100'])('%s: a full disk, never "unavailable" (no retry in a second will help)', (code) => {
    expect(isStorageFull(withCode(code))).toBe(true);
    expect(isStorageUnavailable(withCode(code))).toBe(false);
  });

  it.each(['SQLITE_BUSY', 'SQLITE_IOERR_WRITE', '53300', '53200', 'sqlite_full'])('not %s', (code) => {
    expect(isStorageFull(withCode(code))).toBe(false);
  });

  it.each([['no code', new Error('disk full')], ['undefined', undefined], ['null', null], ['a string', 'SQLITE_FULL']])('not %s', (_label, err) => {
    expect(isStorageFull(err)).toBe(false);
  });
});
