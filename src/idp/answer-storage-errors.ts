import { errors, type Adapter } from 'oidc-provider';
import { isStorageFull, isStorageUnavailable } from '../sql';

/** An error the provider answers with its own status and description, as any other it raises. */
function providerError(status: number, error: string, description: string): errors.OIDCProviderError {
  const err = new errors.OIDCProviderError(status, error);
  err.error_description = description;
  err.expose = true; // the description is ours and safe; the storage's own message is not sent
  return err;
}

/** The storage's failure in the provider's terms, or the error unchanged when it is not one. */
function translate(err: unknown): unknown {
  if (isStorageFull(err)) return providerError(507, 'server_error', 'storage is full');
  if (isStorageUnavailable(err)) return providerError(503, 'temporarily_unavailable', 'storage is unavailable; try again shortly');
  return err;
}

/**
 * oidc-provider's storage with the answers the rest of Outpost gives for a storage failure
 * (docs/reference/api.md): a full disk is 507 `server_error` "storage is full", a busy or
 * unreachable database 503 `temporarily_unavailable` — as JSON at the token endpoint and as the
 * sign-in error page at `/authorize`, never the provider's 500 "oops! something went wrong".
 */
export function answerStorageErrors(adapterFor: (model: string) => Adapter): (model: string) => Adapter {
  return function adapter(model) {
    const inner = adapterFor(model);
    const guarded = {} as Record<string, unknown>;
    for (const name of ['upsert', 'find', 'findByUid', 'findByUserCode', 'consume', 'destroy', 'revokeByGrantId'] as const) {
      const method = inner[name] as ((...args: unknown[]) => Promise<unknown>) | undefined;
      if (method) {
        guarded[name] = async (...args: unknown[]) => {
          try {
            return await method.apply(inner, args);
          } catch (err) {
            throw translate(err);
          }
        };
      }
    }
    return guarded as unknown as Adapter;
  };
}
