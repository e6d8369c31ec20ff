import { errors, type Adapter } from 'oidc-provider';
import { storageErrorTranslator } from '../sql';

/**
 * The storage's failure as the provider answers its own errors, with the status, code and
 * message every other Outpost endpoint gives it (`storageErrorTranslator`, OAuth shape); any
 * other error unchanged. The description is ours and safe to show (`expose`); the storage's own
 * message is never sent.
 */
function translate(err: unknown): unknown {
  const answer = storageErrorTranslator.translate(err, 'oauth');
  if (answer === undefined) return err;
  const providerError = new errors.OIDCProviderError(answer.status, answer.code);
  providerError.error_description = answer.message;
  providerError.expose = true;
  return providerError;
}

/**
 * oidc-provider's storage with the answers the rest of Outpost gives for a storage failure
 * (docs/reference/api.md): a full disk is 507 `server_error` "storage is full", a busy or
 * unreachable database 503 `temporarily_unavailable` — as JSON at the token endpoint and sent
 * back to the client at `/authorize` — never the provider's 500 "oops! something went wrong".
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
