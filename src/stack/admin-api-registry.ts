import type { PolicyRegistry } from '../control-plane';

/** A tenant's admin credentials and where its control plane answers. */
export interface AdminApiCredentials {
  readonly relayUrl: string;
  readonly tenantId: string;
  readonly adminApiKey: string;
}

/** How long one admin API call may take: a push compiles and tests the image on the control plane. */
const CALL_TIMEOUT_MS = 30_000;

/**
 * The tenant's policy registry through the control plane's admin API (docs/reference/api.md):
 * what `npm run dev` pushes a saved folder through, so the push is checked, audited and pushed
 * on to the edges (push on change) exactly as `npm run policy -- push` is.
 */
export function adminApiRegistry(creds: AdminApiCredentials): PolicyRegistry {
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${creds.relayUrl}/api/v2/admin${path}`, {
      method,
      headers: {
        'service-tenant-id': creds.tenantId,
        authorization: `basic ${creds.adminApiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    return { status: res.status, body: ((await res.json().catch(() => ({}))) ?? {}) as Record<string, unknown> };
  };
  const refusal = (reply: { status: number; body: Record<string, unknown> }) => {
    const problems = Array.isArray(reply.body.problems) ? `: ${(reply.body.problems as unknown[]).join('; ')}` : '';
    return new Error(`${reply.status} ${String(reply.body.code ?? 'error')}: ${String(reply.body.message ?? '')}${problems}`);
  };
  return {
    async latest(name) {
      const reply = await call('GET', `/policies/${encodeURIComponent(name)}`);
      if (reply.status === 404 && reply.body.code === 'unknown_policy') return undefined;
      if (reply.status !== 200) throw refusal(reply);
      const latest = reply.body.latest;
      if (typeof latest !== 'string') return undefined;
      const images = Array.isArray(reply.body.images) ? (reply.body.images as { digest?: unknown; signed?: unknown }[]) : [];
      return { digest: latest, signed: images.some((i) => i.digest === latest && i.signed === true) };
    },
    async requiresSignature() {
      const reply = await call('GET', '/signing-keys');
      if (reply.status !== 200) throw refusal(reply);
      return Array.isArray(reply.body.keys) && reply.body.keys.length > 0;
    },
    async push(image) {
      const reply = await call('POST', `/policies/${encodeURIComponent(image.name)}`, { files: image.files });
      if (reply.status !== 200 && reply.status !== 201) throw refusal(reply);
    },
  };
}
