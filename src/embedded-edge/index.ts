export { openEmbeddedAuthorizer } from './embedded-authorizer';
export type { EmbeddedAuthorizer } from './embedded-authorizer';
