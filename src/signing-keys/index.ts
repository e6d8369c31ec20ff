// Image-signing keys on the control plane, a platform area: the admin API's keys
// (`signingKeysExtension`, plugged into createControlPlaneApp's extensions) and the push check
// (`signedImagePushCheck`, its `pushCheck`) that lets a tenant with keys store signed images
// only (docs/guide/05-policy-lifecycle.md, "Signed images"). The edge's side is src/signed-images.
export { signedImagePushCheck } from './signed-image-push-check';
export { signingKeysExtension } from './signing-keys-extension';
