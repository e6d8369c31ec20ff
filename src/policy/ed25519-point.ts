// Ed25519 public keys that prove nothing: an encoding that is no point of the curve, or a
// point of small order (the identity, and the seven other points whose order divides the
// cofactor 8). A signature "by" a small-order key can be made without any private key for a
// share of messages, so such a key must never be trusted (RFC 8032 §5.1.3 decoding; the same
// check as libsodium's `has_small_order`, here by arithmetic rather than a list of encodings).

const P = 2n ** 255n - 19n;

function mod(a: bigint): bigint {
  const r = a % P;
  return r >= 0n ? r : r + P;
}

function pow(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = mod(result * b);
    b = mod(b * b);
  }
  return result;
}

const inverse = (a: bigint): bigint => pow(a, P - 2n);
/** The curve constant d = -121665/121666. */
const D = mod(-121665n * inverse(121666n));
/** A square root of -1 modulo p. */
const SQRT_M1 = pow(2n, (P - 1n) / 4n);

type Point = { readonly x: bigint; readonly y: bigint };

/** Decodes a 32-byte encoding (RFC 8032 §5.1.3), reducing a y at or above p as lenient verifiers do; undefined if no point. */
function decode(bytes: Uint8Array): Point | undefined {
  if (bytes.length !== 32) return undefined;
  let y = 0n;
  for (let i = 31; i >= 0; i -= 1) y = (y << 8n) | BigInt(bytes[i] as number);
  const sign = y >> 255n;
  y = mod(y & ((1n << 255n) - 1n));
  const u = mod(y * y - 1n);
  const v = mod(D * y * y + 1n);
  let x = mod(u * pow(v, 3n) * pow(u * pow(v, 7n), (P - 5n) / 8n));
  if (mod(v * x * x) !== u) {
    if (mod(v * x * x) !== mod(-u)) return undefined;
    x = mod(x * SQRT_M1);
  }
  if (x === 0n && sign === 1n) return undefined;
  if ((x & 1n) !== sign) x = mod(-x);
  return { x, y };
}

/** P + Q on the twisted Edwards curve -x² + y² = 1 + d·x²·y² (complete: d is not a square). */
function add(p: Point, q: Point): Point {
  const t = mod(D * p.x * q.x * p.y * q.y);
  return {
    x: mod((p.x * q.y + p.y * q.x) * inverse(1n + t)),
    y: mod((p.y * q.y + p.x * q.x) * inverse(1n - t)),
  };
}

/**
 * True when `x` (the JWK's raw 32 bytes) is not a valid Ed25519 public key: no point of the
 * curve, or a point whose order divides 8 (then 8·P is the identity).
 */
export function isWeakEd25519Key(x: Uint8Array): boolean {
  const point = decode(x);
  if (!point) return true;
  let q = point;
  for (let i = 0; i < 3; i += 1) q = add(q, q);
  return q.x === 0n && q.y === 1n;
}
