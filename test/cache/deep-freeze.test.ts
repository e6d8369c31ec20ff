import { deepFreeze } from '../../src/cache';

describe('deepFreeze', () => {
  it('freezes the value and everything it holds, arrays included', () => {
    const value = deepFreeze({ a: { b: [{ c: 1 }] }, d: 'x' });
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.a)).toBe(true);
    expect(Object.isFrozen(value.a.b)).toBe(true);
    expect(Object.isFrozen(value.a.b[0])).toBe(true);
    expect(() => {
      (value.a.b[0] as { c: number }).c = 2;
    }).toThrow(TypeError);
  });

  it('passes primitives and null through', () => {
    expect(deepFreeze(3)).toBe(3);
    expect(deepFreeze(null)).toBeNull();
  });
});
