import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { FileContentError, readJsonFile, writeFileAtomic } from '../files';

/** The demo machine client of the client-credentials grant (this file keeps its secret). */
export interface MachineClient {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** The demo machine client's id: what `npm run token -- --machine` authenticates as. */
export const MACHINE_CLIENT_ID = 'outpost-machine';

const fileSchema = z.object({ client_id: z.literal(MACHINE_CLIENT_ID), client_secret: z.string().min(32) });

/**
 * Opens `<dataDir>/idp/machine-client.json`, the demo machine client's credentials for the
 * client-credentials grant (RFC 6749 §4.4). The secret is generated on first start (256
 * random bits, file mode 0600) and never logged; delete the file to get a new one.
 */
export function openMachineClient(file: string): MachineClient {
  const raw = readJsonFile(file);
  if (raw !== undefined) {
    const parsed = fileSchema.safeParse(raw);
    if (!parsed.success) throw new FileContentError(file, 'not a valid machine client file; delete it to generate a new secret');
    return { clientId: parsed.data.client_id, clientSecret: parsed.data.client_secret };
  }
  const client = { client_id: MACHINE_CLIENT_ID, client_secret: randomBytes(32).toString('base64url') };
  writeFileAtomic(file, `${JSON.stringify(client, null, 2)}\n`);
  return { clientId: client.client_id, clientSecret: client.client_secret };
}
