import type { PolicyImage } from '@outpost/cedar-authorizer';

/**
 * What an edge with pinned image-signing keys checks of every image before Cedar sees any of
 * its text (docs/guide/05-policy-lifecycle.md, "Signed images"); `src/signed-images` plugs it in
 * (EdgeRuntimeDeps.imageSignatures). Without it an edge verifies shape and digest only.
 */
export interface ImageSignatureCheck {
  /**
   * Verifies `signature` (the image's `signature` member, if a string) over `image` and that
   * the version it signs is not older than the one activated before; resolves with that
   * version. Throws the reason: the edge keeps its last good image.
   */
  verify(image: PolicyImage, signature: string | undefined): Promise<number>;
  /** Remembers `version` as activated for `image`'s policy name. */
  activated(image: PolicyImage, version: number): void;
}
