import express, { type Router } from 'express';
import { POLICY_NAME_PATTERN } from '../decision-protocol';
import { NotFoundError, parseParam } from '../http';
import { DIGEST_PATTERN } from '../policy';
import { type ControlPlaneStore, policyVersionsView } from '../control-plane';
import { memberOf, requireMember } from './require-member';

/**
 * The console's Policies view under `…/tenants/:tenantId/policies` (docs/reference/api.md, Console
 * API), read-only for every member: the policy names with the digest `latest` points at and
 * whether that image is signed, a name's stored images (the admin API's listing, which says
 * which are signed), and one image's files. Images are pushed
 * with the admin API or `npm run policy`, never from the console.
 */
export function consolePolicyRoutes(store: ControlPlaneStore): Router {
  const router = express.Router({ mergeParams: true });
  const viewer = requireMember(store, 'viewer');
  const nameOf = (value: string | string[] | undefined) => parseParam(value, POLICY_NAME_PATTERN, 'policy name');

  router.get('/', viewer, async function policies(_req, res) {
    const latest = await store.images.latest(memberOf(res.locals).tenantId);
    res.json({ policies: latest.map((p) => ({ name: p.name, digest: p.digest, signed: p.signed })) });
  });

  router.get('/:name', viewer, async function versions(req, res) {
    res.json(await policyVersionsView(store, memberOf(res.locals).tenantId, nameOf(req.params.name)));
  });

  router.get('/:name/images/:digest', viewer, async function image(req, res) {
    const name = nameOf(req.params.name);
    const digest = parseParam(req.params.digest, DIGEST_PATTERN, 'digest');
    const stored = await store.images.stored(memberOf(res.locals).tenantId, name, digest);
    if (!stored) throw new NotFoundError(`no image ${digest} of policy ${name}`, 'unknown_image');
    res.json({ name, digest, files: stored.files });
  });
  return router;
}
