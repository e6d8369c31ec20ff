import { createFairExpiringMap } from '../../src/idp/oauth/fair-expiring-map';
import { fakeClock } from './idp-fixture';

function map(maxEntries: number, maxPerOwner: number, clock = fakeClock(0)) {
  return createFairExpiringMap<string>({ clock, ttlSeconds: 60, maxEntries, maxPerOwner });
}

/** The keys among `keys` the map still holds. */
const held = (m: ReturnType<typeof map>, keys: string[]) => keys.filter((k) => m.get(k) !== undefined);

describe('createFairExpiringMap', () => {
  it('keeps each owner to maxPerOwner entries by replacing that owner’s oldest', () => {
    const m = map(100, 3);
    expect(m.add('quiet', 'q', 'v')).toBe(true);
    const flood = Array.from({ length: 10 }, (_, i) => `f${i}`);
    for (const key of flood) expect(m.add(key, 'flooder', 'v')).toBe(true);
    expect(held(m, ['quiet', ...flood])).toEqual(['quiet', 'f7', 'f8', 'f9']);
    expect(m.size()).toBe(4);
  });

  it('when full, takes from the owner holding the most, never from a quiet owner’s single entry', () => {
    const m = map(10, 5);
    m.add('quiet', 'q', 'v');
    // 3 owners × 5 entries: the table holds 10.
    for (let owner = 0; owner < 3; owner += 1) {
      for (let i = 0; i < 5; i += 1) expect(m.add(`o${owner}-${i}`, `o${owner}`, 'v')).toBe(true);
    }
    expect(m.size()).toBe(10);
    expect(m.get('quiet')).toBe('v');
    // The flooders share the other nine: three each, their newest.
    expect(held(m, Array.from({ length: 5 }, (_, i) => `o2-${i}`))).toEqual(['o2-2', 'o2-3', 'o2-4']);
  });

  it('a flood from many more owners than the table holds never takes a quiet owner’s entry', () => {
    const m = map(10, 5);
    m.add('quiet', 'q', 'v');
    let accepted = 0;
    for (let owner = 0; owner < 300; owner += 1) {
      for (let i = 0; i < 5; i += 1) accepted += m.add(`o${owner}-${i}`, `o${owner}`, 'v') ? 1 : 0;
    }
    expect(m.get('quiet')).toBe('v');
    expect(m.size()).toBe(10);
    // Once the flooders hold one entry each, newcomers are refused rather than evicting anyone.
    expect(accepted).toBeLessThan(1_500);
  });

  it('takes from the adding owner when it is among the largest holders', () => {
    const m = map(4, 4);
    m.add('a1', 'a', 'v');
    m.add('a2', 'a', 'v');
    m.add('b1', 'b', 'v');
    m.add('b2', 'b', 'v');
    m.add('b3', 'b', 'v'); // full; b holds the most: b's oldest goes, a keeps both
    expect(held(m, ['a1', 'a2', 'b1', 'b2', 'b3'])).toEqual(['a1', 'a2', 'b2', 'b3']);
    m.add('a3', 'a', 'v'); // a and b hold two each: the adder pays
    expect(held(m, ['a1', 'a2', 'a3', 'b2', 'b3'])).toEqual(['a2', 'a3', 'b2', 'b3']);
  });

  it('refuses a newcomer when every entry is its owner’s only one, until the oldest expires', () => {
    const clock = fakeClock(0);
    const m = map(3, 5, clock);
    m.add('quiet', 'q', 'v');
    clock.advance(20);
    expect(m.add('x', 'x', 'v')).toBe(true);
    expect(m.add('y', 'y', 'v')).toBe(true);
    expect(m.add('z', 'z', 'v')).toBe(false);
    expect(m.secondsUntilRoom()).toBe(40);
    expect(held(m, ['quiet', 'x', 'y', 'z'])).toEqual(['quiet', 'x', 'y']);
    clock.advance(40);
    expect(m.add('z', 'z', 'v')).toBe(true);
    expect(held(m, ['quiet', 'x', 'y', 'z'])).toEqual(['x', 'y', 'z']);
  });

  it('expires entries after ttlSeconds and frees their owner’s share', () => {
    const clock = fakeClock(0);
    const m = map(10, 2, clock);
    m.add('a1', 'a', 'v');
    clock.advance(59.999);
    expect(m.get('a1')).toBe('v');
    m.add('a2', 'a', 'v');
    clock.advance(0.001);
    expect(m.get('a1')).toBeUndefined();
    m.add('a3', 'a', 'v'); // a1 has expired: a2 stays
    expect(held(m, ['a1', 'a2', 'a3'])).toEqual(['a2', 'a3']);
    m.delete('a2');
    expect(m.size()).toBe(1);
  });

  it('refuses nonsensical options at start-up', () => {
    expect(() => map(0, 1)).toThrow('invalid fair map options');
    expect(() => map(10, 1.5)).toThrow('invalid fair map options');
  });
});
