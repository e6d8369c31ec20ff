import { closeSync, fchmodSync, openSync, readFileSync, writeSync } from 'node:fs';
import { exportJWK, generateKeyPair } from 'jose';
import {
  MAX_SIGNED_VERSION,
  privateSigningKeySchema,
  signedVersionSchema,
  signingKeyId,
  signingKeySetSchema,
  type PrivateSigningKey,
  type PublicSigningKey,
} from '../../src/policy';
import { ScriptError } from './script-error';

/** The two files `npm run policy -- keygen` writes for one key pair. */
export interface KeyPairFiles {
  /** The private JWK, mode 0600: it signs images; keep it away from the control plane and edges. */
  readonly privateFile: string;
  /** The public key as a key set (`{"keys": [JWK]}`): what the control plane registers and edges pin. */
  readonly publicFile: string;
  readonly kid: string;
}

/** The file names for `prefix`: `<prefix>.key.json` and `<prefix>.pub.json`. */
export function keyPairFiles(prefix: string): Omit<KeyPairFiles, 'kid'> {
  return { privateFile: `${prefix}.key.json`, publicFile: `${prefix}.pub.json` };
}

/** Writes a new file (never replacing one) with `mode`, set with fchmod so the umask cannot widen it. */
function writeNewFile(file: string, text: string, mode: number): void {
  let fd: number;
  try {
    fd = openSync(file, 'wx', mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ScriptError(code === 'EEXIST' ? `${file} already exists; choose another --out or remove it` : `cannot write ${file} (${code ?? 'error'})`);
  }
  try {
    fchmodSync(fd, mode);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * Generates an image-signing key pair (Ed25519, or P-256 for ES256) and writes the
 * private JWK (0600) and the public key set (0644) next to `prefix`; refuses to replace
 * existing files, so a key in use is never overwritten.
 */
export async function writeKeyPair(prefix: string, algorithm: 'Ed25519' | 'ES256'): Promise<KeyPairFiles> {
  const { privateKey, publicKey } = await generateKeyPair(algorithm, { extractable: true });
  const { privateFile, publicFile } = keyPairFiles(prefix);
  const privateJwk = privateSigningKeySchema.parse(await exportJWK(privateKey));
  const publicJwk = signingKeySetSchema.parse({ keys: [await exportJWK(publicKey)] });
  writeNewFile(privateFile, `${JSON.stringify(privateJwk)}\n`, 0o600);
  writeNewFile(publicFile, `${JSON.stringify(publicJwk, null, 2)}\n`, 0o644);
  return { privateFile, publicFile, kid: await signingKeyId(privateJwk) };
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ScriptError(`cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ScriptError(`${file} is not JSON`);
  }
}

/** Reads a private key written by {@link writeKeyPair}; a public key or anything else is refused. */
export function readPrivateKey(file: string): PrivateSigningKey {
  const parsed = privateSigningKeySchema.safeParse(readJson(file));
  if (!parsed.success) throw new ScriptError(`${file} is not a private Ed25519 or P-256 JWK (use the .key.json file keygen wrote)`);
  return parsed.data;
}

/** Reads a public key set written by {@link writeKeyPair}; a private key is refused, so it is never sent anywhere. */
export function readPublicKeys(file: string): PublicSigningKey[] {
  const parsed = signingKeySetSchema.safeParse(readJson(file));
  if (!parsed.success) throw new ScriptError(`${file} is not a public key set {"keys": [...]} (use the .pub.json file keygen wrote)`);
  return parsed.data.keys;
}

/** A signed version as typed (`--version`) or sent (`Outpost-Signed-Version`): a whole number from 1. */
export function parseSignedVersion(text: string): number {
  const version = /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : NaN;
  if (!signedVersionSchema.safeParse(version).success) throw new ScriptError(`${text} is not a version (a whole number from 1 to ${MAX_SIGNED_VERSION})`);
  return version;
}
