import { createLruCache } from '../../src/cache';

describe('createLruCache', () => {
  it('evicts the least recently used entry', () => {
    const cache = createLruCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // b is now the oldest
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
    expect(cache.size).toBe(2);
  });

  it('replaces a value without growing, and deletes and clears', () => {
    const cache = createLruCache<string>(3);
    cache.set('k', 'old');
    cache.set('k', 'new');
    expect(cache.size).toBe(1);
    expect(cache.get('k')).toBe('new');
    cache.set('j', 'x');
    cache.delete('k');
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(1);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('caches nothing at capacity 0 and refuses a negative or fractional capacity', () => {
    const cache = createLruCache<number>(0);
    cache.set('a', 1);
    expect(cache.get('a')).toBeUndefined();
    expect(() => createLruCache(-1)).toThrow(RangeError);
    expect(() => createLruCache(1.5)).toThrow(RangeError);
  });
});
