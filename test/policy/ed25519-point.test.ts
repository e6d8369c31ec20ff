import { generateKeyPairSync } from 'node:crypto';
import { isWeakEd25519Key } from '../../src/policy/ed25519-point';
import { publicSigningKeySchema, signingKeySetSchema } from '../../src/policy';

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const littleEndian = (...low: number[]) => Uint8Array.from({ length: 32 }, (_v, i) => low[i] ?? 0);

describe('weak Ed25519 public keys', () => {
  // libsodium's list of small-order encodings; here each is found by arithmetic (8·P = identity).
  const smallOrder: Record<string, Uint8Array> = {
    'the identity (order 1)': littleEndian(1),
    '32 zero bytes (order 4)': littleEndian(),
    'p − 1 (order 2)': bytes('ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'),
    'p, a non-canonical 0 (order 4)': bytes('edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'),
    'p + 1, a non-canonical identity': bytes('eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'),
    'a point of order 8': bytes('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05'),
    'the other point of order 8': bytes('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a'),
  };

  it.each(Object.entries(smallOrder))('finds %s weak', (_name, x) => {
    expect(isWeakEd25519Key(x)).toBe(true);
  });

  it('finds an encoding that is no point of the curve weak (y = 2), and one of the wrong length', () => {
    expect(isWeakEd25519Key(littleEndian(2))).toBe(true);
    expect(isWeakEd25519Key(new Uint8Array(31))).toBe(true);
  });

  it('accepts the base point and freshly generated keys', () => {
    expect(isWeakEd25519Key(bytes('5866666666666666666666666666666666666666666666666666666666666666'))).toBe(false);
    for (let i = 0; i < 20; i += 1) {
      const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
      expect(isWeakEd25519Key(Buffer.from(jwk.x as string, 'base64url'))).toBe(false);
    }
  });

  it('keeps weak keys out of the registry and out of an edge’s pinned set', () => {
    const zero = { kty: 'OKP', crv: 'Ed25519', x: Buffer.alloc(32).toString('base64url') };
    expect(publicSigningKeySchema.safeParse(zero).success).toBe(false);
    expect(signingKeySetSchema.safeParse({ keys: [zero] }).success).toBe(false);
    const real = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    expect(publicSigningKeySchema.safeParse({ kty: 'OKP', crv: 'Ed25519', x: real.x }).success).toBe(true);
  });
});
