import { createLogger, unredactedLogger } from '../../src/observability';

/** A createLogger logger whose lines land in `lines`. */
function capture(): { lines: Record<string, unknown>[]; logger: ReturnType<typeof createLogger> } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('edge', 'info', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { lines, logger };
}

describe('unredactedLogger', () => {
  it('writes every field as given, with the parent\'s name and destination', () => {
    const { lines, logger } = capture();
    unredactedLogger(logger).info({ req_id: 'r1', decisions: [{ principal: 'rick', password: 'kept' }], token: 'kept' }, 'decision');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ name: 'edge', level: 30, req_id: 'r1', decisions: [{ principal: 'rick', password: 'kept' }], token: 'kept', msg: 'decision' });
  });

  it('leaves its parent redacting, before and after', () => {
    const { lines, logger } = capture();
    logger.info({ token: 't', a: { password: 'p' }, req: { headers: { authorization: 'Bearer x' } } }, 'before');
    unredactedLogger(logger).info({ n: 1 }, 'decision');
    logger.info({ token: 't', a: { password: 'p' }, req: { headers: { authorization: 'Bearer x' } } }, 'after');
    for (const line of [lines[0]!, lines[2]!]) {
      expect(line).not.toHaveProperty('token');
      expect(line.a).toEqual({});
      expect(line.req).toEqual({ headers: {} });
    }
  });
});
