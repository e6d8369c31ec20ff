import { Router } from 'express';
import { ConflictError, HttpError, httpError, NotFoundError, parseBody, parseParam, statusOf } from '../http';
import { POLICY_NAME_PATTERN } from '../decision-protocol';
import type { PolicyImage } from '../policy';
import type { DecisionSampleReply } from '../relay';
import { recordAdminKeyAudit } from './audit-repository';
import type { ControlPlaneStore } from './control-plane-store';
import { directoryNames, type NameOf } from './directory-names';
import { dryRunBodySchema, replaySample, type SampleReplay } from './dry-run';
import type { ImagePushCheck } from './image-push-check';
import { LATEST_TAG, MAX_IMAGES_PER_TENANT } from './policy-image-repository';
import { authenticatedTenant } from './require-tenant-key';
import { pushBodySchema, validatePushedImage } from './validate-pushed-image';

/**
 * A policy's stored images, newest first (each saying whether it was pushed signed, and the
 * version its signature signed), and the digest `latest` points at (404
 * `unknown_policy` when the tenant has no image of that name): the admin API's and the
 * console's answer to "which versions of this policy are there".
 */
export async function policyVersionsView(store: ControlPlaneStore, tenantId: string, name: string) {
  const images = await store.images.versions(tenantId, name);
  if (images.length === 0) throw new NotFoundError(`no policy named ${name}`, 'unknown_policy');
  return {
    name,
    latest: (await store.images.taggedDigest(tenantId, name)) ?? null,
    images: images.map((i) => ({
      digest: i.digest,
      created_at: new Date(i.createdAt).toISOString(),
      signed: i.signed,
      signed_version: i.signedVersion,
    })),
  };
}

/** The header of `GET /api/v2/admin/policies/:name` naming the highest signed version accepted (absent before the first). */
const SIGNED_VERSION_HEADER = 'Outpost-Signed-Version';

/**
 * 409 `stale_signature`: a signed push whose version is not above the highest accepted for
 * the policy, such as an older image pushed again with its old signature. The body adds
 * `highest_version`.
 */
class StaleSignatureError extends HttpError {
  constructor(
    name: string,
    version: number,
    readonly highestVersion: number,
  ) {
    super(
      statusOf('stale_signature'),
      'stale_signature',
      `the signature is for version ${version} of policy ${name}, and version ${highestVersion} was pushed already: ` +
        'a signed push must carry a higher version, so an older image cannot return with its old signature. ' +
        'To roll back, sign the older image again as a new version (npm run policy -- push <folder> --sign <private key file> picks the next one)',
    );
  }

  override toBody(): Record<string, unknown> {
    return { ...super.toBody(), highest_version: this.highestVersion };
  }
}

/** A replay's flips with each principal's name and e-mail from the tenant's directory (null where it has none). */
function namePrincipals(replay: SampleReplay, nameOf: NameOf) {
  const named = <T extends { readonly principal: string }>(flip: T) => {
    const known = nameOf(flip.principal);
    return { ...flip, principal_name: known?.name ?? null, principal_email: known?.email ?? null };
  };
  const policyOnly = replay.policy_only;
  return { ...replay, changes: replay.changes.map(named), policy_only: policyOnly && { ...policyOnly, changes: policyOnly.changes.map(named) } };
}

/** Asks a tenant's edge for its decision sample over the relay (exec's errors: 404, 409, 502, 504). */
export type DecisionSampler = (tenantId: string, instanceId: string) => Promise<DecisionSampleReply>;

/** A candidate of a dry run is never stored: the push check is not asked, and nothing is verified. */
const NOT_STORED = () => Promise.resolve(undefined);

/**
 * The policy registry's admin API (admin key), and with a `sampler` (the relay) the dry
 * run of a candidate against one edge's recorded decisions. Every push is handed to the
 * `pushCheck` (signed images: src/signing-keys) before Cedar sees it. Every accepted push (a new image,
 * or one stored already that `latest` points at again) is written to the tenant's audit log as
 * the admin key's, with the push (`policy.push`, or `policy.push.signed`; target
 * `<name>@<digest>`); a refused one writes nothing:
 *
 *   curl -X POST {relay_url}/api/v2/admin/policies/rbac -H 'content-type: application/json' \
 *     -H 'service-tenant-id: <TENANT_ID>' -H 'Authorization: basic <ADMIN_API_KEY>' \
 *     -d '{"files":{"manifest.json":"…","schema.cedarschema":"…","rbac.cedar":"…"}}'
 *   curl {relay_url}/api/v2/admin/policies/rbac -H 'service-tenant-id: …' -H 'Authorization: basic …'
 */
export function adminPolicyRoutes(store: ControlPlaneStore, pushCheck: ImagePushCheck, sampler?: DecisionSampler): Router {
  const router = Router();

  if (sampler) {
    // Validated like a push (signature aside: nothing is stored), then replayed; docs/reference/api.md, "Dry run".
    router.post('/:name/dry-run', async (req, res) => {
      const tenantId = authenticatedTenant(res.locals);
      const name = parseParam(req.params.name, POLICY_NAME_PATTERN, 'policy name');
      const { files, instance_id: instanceId } = parseBody(dryRunBodySchema, req.body);
      const { image } = await validatePushedImage(name, { files }, NOT_STORED);
      const sample = await sampler(tenantId, instanceId);
      if (sample.status.policy_name !== name) {
        throw new ConflictError(`instance ${instanceId} serves policy ${sample.status.policy_name}, not ${name}`, 'policy_mismatch');
      }
      const directory = await store.directory.snapshot(tenantId);
      if (directory === undefined) throw new ConflictError('this tenant has no central directory to decide with', 'no_directory');
      // The edge's current image, to tell the candidate's own flips from what changed since recording.
      const digest = sample.status.policy_digest;
      const current = digest === null ? undefined : await store.images.stored(tenantId, name, digest);
      const replay = namePrincipals(replaySample(image, directory, sample.entries, current), directoryNames(directory));
      res.set('Cache-Control', 'no-store').json({
        name,
        instance_id: instanceId,
        candidate_digest: image.digest,
        edge_policy_digest: sample.status.policy_digest,
        directory_revision: directory.revision,
        ...replay,
      });
    });
  }

  router.post('/:name', async (req, res) => {
    const tenantId = authenticatedTenant(res.locals);
    const name = parseParam(req.params.name, POLICY_NAME_PATTERN, 'policy name');
    const check = (image: PolicyImage, signature: string | undefined) => pushCheck.check({ tenantId, image, signature }, store);
    const { image, signature, version } = await validatePushedImage(name, parseBody(pushBodySchema, req.body), check);
    const pushed = await store.transaction(async (tx) => {
      const result = await tx.images.push(tenantId, image, signature, version);
      // Asked again where the image is stored: a signing key registered since the first ask
      // refuses the push here, and the transaction takes the image back.
      await pushCheck.check({ tenantId, image, signature }, tx);
      // A quota or stale-version refusal stored nothing: nothing to audit.
      if (!('highestVersion' in result) && !result.quotaExceeded) {
        await recordAdminKeyAudit(tx.audit, tenantId, signature === undefined ? 'policy.push' : 'policy.push.signed', `${name}@${result.digest}`);
      }
      return result;
    });
    if ('highestVersion' in pushed) throw new StaleSignatureError(name, version!, pushed.highestVersion);
    if (pushed.quotaExceeded) {
      throw httpError('quota_exceeded', `this tenant already stores ${MAX_IMAGES_PER_TENANT} tagged policy images`);
    }
    res.status(pushed.created ? 201 : 200).json({ name, digest: pushed.digest, tag: LATEST_TAG });
  });

  // The signed version rides in a header: `npm run policy -- push --sign` signs the next one.
  router.get('/:name', async (req, res) => {
    const tenantId = authenticatedTenant(res.locals);
    const name = parseParam(req.params.name, POLICY_NAME_PATTERN, 'policy name');
    const view = await policyVersionsView(store, tenantId, name);
    const version = await store.images.signedVersion(tenantId, name);
    if (version !== undefined) res.set(SIGNED_VERSION_HEADER, String(version));
    res.json(view);
  });

  return router;
}
