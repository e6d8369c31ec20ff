import type { AccessTokenClaims } from '../access-token';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Claims of the verified access token; set only behind `requireAccessToken()`. */
      auth?: AccessTokenClaims;
    }
  }
}
