// Typed once for every app: the request id set by `requestContext()`.
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Request id, echoed as `X-Request-Id` and present on every log line. */
      id: string;
    }
  }
}

export {};
