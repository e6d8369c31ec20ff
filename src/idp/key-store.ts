import { existsSync, readFileSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { CryptoKey } from 'jose';
import type { Logger } from '../observability';
import type { Clock } from './clock';
import { writeSecretFile } from './secret-file';
import {
  generateStoredKey, importPrivateKey, isPublished, keyFileSchema, toPublicJwk,
  type KeyFile, type PublicJwk, type StoredKey,
} from './signing-keys';

/** The key new tokens are signed with. */
export interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
}

/**
 * The IdP's signing keys, persisted in `<dataDir>/idp/keys.json` (mode 0600). The file is
 * the source of truth: when another process (`npm run rotate-key`) replaces it, the next
 * request notices (one `stat`, comparing inode, size and mtime) and reloads it.
 */
export interface KeyStore {
  /** The active key, after picking up any change on disk. */
  signingKey(): Promise<SigningKey>;
  /** Public keys to publish: the active one plus keys retired within the overlap window. */
  publicKeys(): Promise<PublicJwk[]>;
  /** Adds a new active key, retires the current one, drops keys past their overlap. Returns the new kid. */
  rotate(): Promise<string>;
}

export interface KeyStoreOptions {
  readonly file: string;
  /** Seconds a retired key stays in the JWKS, so tokens it signed keep verifying. */
  readonly overlapSeconds: number;
  readonly clock: Clock;
  readonly logger: Logger;
}

function fingerprint(file: string, s: { ino: number; size: number; mtimeMs: number }): string {
  return `${file}:${s.ino}:${s.size}:${s.mtimeMs}`;
}

interface Loaded {
  readonly file: KeyFile;
  readonly active: SigningKey;
}

/** Opens the key file, generating the first key (and the file) on first start. */
export async function openKeyStore(options: KeyStoreOptions): Promise<KeyStore> {
  const { file, overlapSeconds, clock, logger } = options;
  const nowSeconds = () => Math.floor(clock() / 1000);
  /** Imported CryptoKeys by kid: each key is imported once, not per request or per reload. */
  const imported = new Map<string, CryptoKey>();
  let seen = '';
  let reloading: Promise<void> | undefined;

  async function load(next: KeyFile): Promise<Loaded> {
    const stored = next.keys.find((k) => k.retired_at === undefined) as StoredKey;
    const privateKey = imported.get(stored.kid) ?? (await importPrivateKey(stored));
    imported.set(stored.kid, privateKey);
    for (const kid of imported.keys()) if (!next.keys.some((k) => k.kid === kid)) imported.delete(kid);
    return { file: next, active: { kid: stored.kid, privateKey } };
  }

  function persist(next: KeyFile): void {
    writeSecretFile(file, `${JSON.stringify(next, null, 2)}\n`);
    seen = fingerprint(file, statSync(file));
  }

  let current: Loaded;
  if (existsSync(file)) {
    current = await load(keyFileSchema.parse(JSON.parse(readFileSync(file, 'utf8'))));
    seen = fingerprint(file, statSync(file));
  } else {
    current = await load({ version: 1, keys: [await generateStoredKey(nowSeconds())] });
    persist(current.file);
    logger.warn({ kid: current.active.kid }, 'generated a new DEMO signing key (kept in the data directory; demo use only)');
  }

  async function reloadIfChanged(): Promise<void> {
    let now: string;
    try {
      now = fingerprint(file, await stat(file));
    } catch {
      return; // The file vanished: keep serving the keys we hold rather than fail.
    }
    if (now === seen) return;
    seen = now;
    try {
      current = await load(keyFileSchema.parse(JSON.parse(readFileSync(file, 'utf8'))));
      logger.info({ kid: current.active.kid }, 'signing keys reloaded from disk');
    } catch (err) {
      // A half-edited or invalid file must not take the IdP down: keep the last good keys.
      // Only the error's name: a JSON.parse message can quote part of the private key.
      logger.warn({ err: (err as Error).name }, 'ignoring invalid keys file');
    }
  }

  /** At most one reload at a time; concurrent requests share it. */
  function refresh(): Promise<void> {
    reloading ??= reloadIfChanged().finally(() => (reloading = undefined));
    return reloading;
  }

  return {
    async signingKey() {
      await refresh();
      return current.active;
    },
    async publicKeys() {
      await refresh();
      const now = nowSeconds();
      return current.file.keys.filter((k) => isPublished(k, now, overlapSeconds)).map(toPublicJwk);
    },
    async rotate() {
      await refresh();
      const now = nowSeconds();
      const fresh = await generateStoredKey(now);
      const kept = current.file.keys
        .map((k) => (k.retired_at === undefined ? { ...k, retired_at: now } : k))
        .filter((k) => isPublished(k, now, overlapSeconds));
      current = await load({ version: 1, keys: [...kept, fresh] });
      persist(current.file);
      logger.info({ kid: fresh.kid }, 'signing key rotated');
      return fresh.kid;
    },
  };
}
