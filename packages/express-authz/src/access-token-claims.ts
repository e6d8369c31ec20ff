/**
 * The verified claims of an access token (RFC 9068 §2.2), as returned by the verifier and set
 * on `req.auth` by the Express adapter.
 */
export interface AccessTokenClaims {
  /** The user's stable id; the authorization principal. */
  sub: string;
  iss: string;
  aud: string | string[];
  client_id?: string;
  scope?: string;
  /** Expiry, seconds since the epoch; always present (we require it). */
  exp: number;
  iat?: number;
  nbf?: number;
  jti?: string;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Claims of the verified access token; set only behind `requireAccessToken()`. */
      auth?: AccessTokenClaims;
    }
  }
}
