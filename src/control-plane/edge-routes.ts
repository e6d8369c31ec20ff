import { Router, type Request } from 'express';
import { BadRequestError, httpError, NotFoundError } from '../http';
import type { ControlPlaneStore } from './control-plane-store';
import { authenticatedConnection } from './require-connection';

/** True when `If-None-Match` lists this entity tag (weak comparison, RFC 9110 §13.1.2). */
function matchesIfNoneMatch(req: Request, etag: string): boolean {
  const header = req.get('if-none-match');
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

const SINCE = /^(0|[1-9][0-9]{0,14})$/;

/**
 * What edges download, authenticated with their connection credentials (mounted behind
 * `requireConnection`). Each edge sees only its own tenant's directory and the image of
 * the policy its connection serves.
 */
export function edgeRoutes(store: ControlPlaneStore): Router {
  const router = Router();

  // Conditional download (RFC 9110 §13.1.2): an unchanged image costs one 304.
  router.get('/policy-image', async (req, res) => {
    const { tenantId, policyName } = authenticatedConnection(res.locals);
    const digest = await store.images.taggedDigest(tenantId, policyName);
    if (!digest) throw new NotFoundError(`no image for policy ${policyName}`, 'no_image');
    res.set('Cache-Control', 'no-cache');
    if (matchesIfNoneMatch(req, `"${digest}"`)) {
      res.set('ETag', `"${digest}"`).status(304).end();
      return;
    }
    // Read again with the body: a push in between moves the tag, and the ETag must match what is sent.
    const stored = await store.images.tagged(tenantId, policyName);
    if (!stored) throw new NotFoundError(`no image for policy ${policyName}`, 'no_image');
    // The signature travels with the image; the edge decides, from its own configuration,
    // whether it must verify it.
    const { image, signature } = stored;
    res.set('ETag', `"${image.digest}"`).json(signature === undefined ? image : { ...image, signature });
  });

  router.get('/directory', async (req, res) => {
    const data = await store.directory.snapshot(authenticatedConnection(res.locals).tenantId);
    if (!data) throw new NotFoundError('no directory for this tenant', 'no_directory');
    const etag = `"${data.revision}"`;
    res.set('ETag', etag).set('Cache-Control', 'no-cache');
    if (matchesIfNoneMatch(req, etag)) {
      res.status(304).end();
      return;
    }
    res.json(data);
  });

  router.get('/directory/changes', async (req, res) => {
    const since = req.query.since;
    if (typeof since !== 'string' || !SINCE.test(since)) {
      throw new BadRequestError('query parameter since must be a non-negative integer revision');
    }
    const result = await store.directory.changesSince(authenticatedConnection(res.locals).tenantId, Number(since));
    if (result.kind === 'resync') {
      throw httpError('resync_required', `the change log does not reach back to revision ${since}; fetch the full directory`);
    }
    res.set('Cache-Control', 'no-store').json({ revision: result.revision, changes: result.changes });
  });

  return router;
}
