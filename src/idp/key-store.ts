import { hkdfSync } from 'node:crypto';
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { CryptoKey, JWK } from 'jose';
import { FileContentError, withFileLock } from '../files';
import type { Logger } from '../observability';
import type { Clock } from './clock';
import { keyFileLock, openKeyFile, readKeyFile, writeKeyFile } from './key-file';
import {
  generateStoredKey, importPrivateKey, isPublished, SIGNING_ALG, toPublicJwk,
  type KeyFile, type PublicJwk, type StoredKey,
} from './signing-keys';

/** The key new tokens are signed with. */
export interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
}

/**
 * The IdP's signing keys, persisted in `<dataDir>/idp/keys.json` (mode 0600, fsynced). The
 * file is the source of truth: when another process (`npm run rotate-key`) replaces it, the
 * next request notices (one `stat`, comparing inode, size and mtime) and reloads it. Every
 * write is a read-modify-write under `keys.json.lock`, so two rotations never lose a key.
 */
export interface KeyStore {
  /** The active key, after picking up any change on disk. */
  signingKey(): Promise<SigningKey>;
  /** Public keys to publish: the active one plus keys retired within the overlap window. */
  publicKeys(): Promise<PublicJwk[]>;
  /** Adds a new active key, retires the current one, drops keys past their overlap. Returns the new kid. */
  rotate(): Promise<string>;
  /** What the OIDC provider is built with; a new `version` means a new provider (provider.ts). */
  providerKeys(): Promise<ProviderKeys>;
}

/** The published keys as the provider takes them, and the cookie secrets derived from them. */
export interface ProviderKeys {
  /** The kids of `jwks` in order: changes on rotation and when a retired key leaves the JWKS. */
  readonly version: string;
  /** Private JWKs, the active key first (the provider signs with the first). */
  readonly jwks: JWK[];
  /** One secret per key, same order: cookies signed before a rotation stay valid for its overlap. */
  readonly cookieKeys: Buffer[];
}

export interface KeyStoreOptions {
  readonly file: string;
  /** Seconds a retired key stays in the JWKS, so tokens it signed keep verifying. */
  readonly overlapSeconds: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * By default an unreadable key file (empty, not JSON, invalid) stops the open with an
   * error naming the file and the recovery. With this set, such a file is replaced by a
   * fresh key set instead, and this is told why (the recovery `npm run rotate-key` offers).
   */
  readonly onUnreadable?: (err: FileContentError) => void;
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
  const { file, overlapSeconds, clock, logger, onUnreadable } = options;
  const lock = keyFileLock(file);
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
    writeKeyFile(file, next);
    seen = fingerprint(file, statSync(file));
  }

  /** First start (or recovery): generate and persist a key, unless another process did meanwhile. */
  async function createKeyFile(): Promise<KeyFile> {
    const fresh = await generateStoredKey(nowSeconds());
    return withFileLock(lock, () => {
      // Re-read under the lock; a file still unreadable was already reported, so replace it quietly.
      const raced = openKeyFile(file, onUnreadable && (() => undefined));
      if (raced) return raced;
      const created: KeyFile = { version: 1, keys: [fresh] };
      persist(created);
      logger.warn({ kid: fresh.kid }, 'generated a new DEMO signing key (kept in the data directory; demo use only)');
      return created;
    });
  }

  let current = await load(openKeyFile(file, onUnreadable) ?? (await createKeyFile()));
  seen = fingerprint(file, statSync(file));

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
      const next = readKeyFile(file);
      if (next === undefined) return;
      current = await load(next);
      logger.info({ kid: current.active.kid }, 'signing keys reloaded from disk');
    } catch (err) {
      // A half-edited or invalid file must not take the IdP down: keep the last good keys.
      // FileContentError messages never quote the file; anything else logs its name only.
      const reason = err instanceof FileContentError ? err.message : (err as Error).name;
      logger.warn({ err: reason }, 'ignoring invalid keys file');
    }
  }

  /** At most one reload at a time; concurrent requests share it. */
  function refresh(): Promise<void> {
    reloading ??= reloadIfChanged().finally(() => (reloading = undefined));
    return reloading;
  }

  let built: ProviderKeys | undefined;

  return {
    async providerKeys() {
      await refresh();
      const now = nowSeconds();
      const published = current.file.keys
        .filter((k) => isPublished(k, now, overlapSeconds))
        .sort((a, b) => Number(a.retired_at !== undefined) - Number(b.retired_at !== undefined) || (b.retired_at ?? 0) - (a.retired_at ?? 0));
      const version = published.map((k) => k.kid).join(',');
      if (built?.version !== version) {
        built = {
          version,
          jwks: published.map((k) => ({ ...k.private_jwk, kid: k.kid, alg: SIGNING_ALG, use: 'sig' }) as JWK),
          cookieKeys: published.map((k) => Buffer.from(hkdfSync('sha256', Buffer.from(k.private_jwk.d, 'base64url'), k.kid, 'outpost idp cookies', 32))),
        };
      }
      return built;
    },
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
      const fresh = await generateStoredKey(nowSeconds()); // slow: outside the lock
      const next = await withFileLock(lock, () => {
        // Read what is on disk now, under the lock: another rotation may have just written it.
        let base = current.file;
        try {
          base = readKeyFile(file) ?? base;
        } catch (err) {
          logger.warn({ err: (err as Error).message }, 'keys file unreadable; rotating from the keys in memory');
        }
        const now = nowSeconds();
        const kept = base.keys
          .map((k) => (k.retired_at === undefined ? { ...k, retired_at: now } : k))
          .filter((k) => isPublished(k, now, overlapSeconds));
        const rotated: KeyFile = { version: 1, keys: [...kept, { ...fresh, created_at: now }] };
        persist(rotated);
        return rotated;
      });
      current = await load(next);
      logger.info({ kid: fresh.kid }, 'signing key rotated');
      return fresh.kid;
    },
  };
}
