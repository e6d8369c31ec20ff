import { HttpError } from '../../src/http';

/** The error a promise rejects with, as the HttpError it must be (fails the test otherwise). */
export async function httpFailure(promise: Promise<unknown>): Promise<HttpError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof HttpError)) throw new Error(`expected an HttpError, got ${String(err)}`);
  return err;
}
