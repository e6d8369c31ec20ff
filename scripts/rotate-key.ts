// Rotates the IdP's signing key in the data directory:  npm run rotate-key
// New tokens are signed with the new key; the previous public key stays in the JWKS for
// KEY_ROTATION_OVERLAP seconds so tokens it signed keep verifying. A running IdP needs no
// restart: it notices the changed keys.json (one stat per request) and reloads it.
import { loadConfig } from '../src/config';
import { idpFiles, openIdpKeyStore } from '../src/idp';
import { silentLogger } from '../src/observability';
import { refuseWithoutSigningKeys } from './lib/check-signing-keys';

async function main(): Promise<void> {
  const config = loadConfig();
  await refuseWithoutSigningKeys(config);
  const keys = await openIdpKeyStore(config, silentLogger());
  const kid = await keys.rotate();
  const published = (await keys.publicKeys()).map((k) => k.kid);
  process.stdout.write(
    [
      `rotated the signing key in ${idpFiles(config.dataDir).keysFile}`,
      `  new kid:        ${kid}`,
      `  published kids: ${published.join(', ')}`,
      `  retired keys stay published for ${config.idp.keyRotationOverlap} s (KEY_ROTATION_OVERLAP)`,
      '  a running IdP picks the new key up on its next request',
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`rotate-key: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
