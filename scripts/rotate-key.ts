// Rotates the IdP's signing key in the data directory:  npm run rotate-key
// New tokens are signed with the new key; the previous public key stays in the JWKS for
// KEY_ROTATION_OVERLAP seconds so tokens it signed keep verifying. A running IdP needs no
// restart: it notices the changed keys.json (one stat per request) and reloads it.
// Rotations take keys.json.lock, so two at once both land (the second waits for the first).
// An unreadable keys.json (empty after a power loss, corrupt) is replaced by a new key.
import { loadConfig } from '../src/config';
import type { FileContentError } from '../src/files';
import { idpFiles, openKeyStore, systemClock } from '../src/idp';
import { silentLogger } from '../src/observability';
import { refuseWithoutSigningKeys } from './lib/check-signing-keys';
import { scriptCommand } from './lib/script-command';

async function main(): Promise<void> {
  const config = loadConfig();
  await refuseWithoutSigningKeys(config);
  const file = idpFiles(config.dataDir).keysFile;
  let replaced: FileContentError | undefined;
  const keys = await openKeyStore({
    file,
    overlapSeconds: config.idp.keyRotationOverlap,
    clock: systemClock,
    logger: silentLogger(),
    onUnreadable: (err) => (replaced = err),
  });
  // A replaced file already holds a brand-new key: rotating again would only add a second.
  const kid = replaced ? (await keys.signingKey()).kid : await keys.rotate();
  const published = (await keys.publicKeys()).map((k) => k.kid);
  const lines = replaced
    ? [
        `replaced an unreadable ${file} (${replaced.reason}) with a new signing key`,
        '  tokens signed with the old keys will be refused: users must sign in again',
      ]
    : [`rotated the signing key in ${file}`];
  process.stdout.write(
    [
      ...lines,
      `  new kid:        ${kid}`,
      `  published kids: ${published.join(', ')}`,
      `  retired keys stay published for ${config.idp.keyRotationOverlap} s (KEY_ROTATION_OVERLAP)`,
      '  a running IdP picks the new key up on its next request',
      '',
    ].join('\n'),
  );
}

scriptCommand(
  'npm run rotate-key --',
  'give the IdP a new signing key in <data dir>/idp/keys.json; the old public key stays in the JWKS for KEY_ROTATION_OVERLAP seconds, and a running IdP needs no restart',
  'npm run rotate-key',
).parse();

main().catch((err: unknown) => {
  process.stderr.write(`rotate-key: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
