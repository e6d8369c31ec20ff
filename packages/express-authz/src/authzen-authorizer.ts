import type { AuthorizationDecision, AuthorizationRequest, Authorizer } from './authorizer';
import { AuthorizerUnavailableError } from './errors';

/** Options of {@link createAuthzenAuthorizer}. */
export interface AuthzenAuthorizerOptions {
  /** The PDP's base URL; decisions go to `<url>/access/v1/evaluation`. */
  readonly url: string;
  /** Deadline of one decision, connection included. Default 2,000 ms. */
  readonly timeoutMs?: number;
  /**
   * What the PDP needs to know about the subject beyond its id, sent as `subject.properties`
   * (e.g. Cerbos reads roles from `{ cerbos: { roles } }`). Default: none — a PDP with a
   * directory of its own (Outpost's edge, Topaz) looks the user up by id.
   */
  readonly subjectProperties?: (request: AuthorizationRequest) => Record<string, unknown> | undefined;
  /** Extra request headers, e.g. `{ authorization: 'Bearer …' }` for a PDP that wants one. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The most of a PDP's answer read; an evaluation answer is tens of bytes. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** An id the PDP may log (AuthZEN's `X-Request-ID`); any other is not sent. */
const FORWARDED_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The AuthZEN 1.0 evaluation body for one question. */
function toEvaluation(request: AuthorizationRequest, subjectProperties?: Record<string, unknown>): Record<string, unknown> {
  return {
    subject: { type: 'user', id: request.principal, ...(subjectProperties ? { properties: subjectProperties } : {}) },
    action: { name: request.action },
    resource: { type: request.resource.type, id: request.resource.id, ...(request.resource.attributes ? { properties: request.resource.attributes } : {}) },
    ...(request.context ? { context: request.context } : {}),
  };
}

async function readBounded(res: Response): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) throw new Error('answer too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * An {@link Authorizer} for any AuthZEN 1.0 PDP over HTTP (Outpost's edge, Cerbos, Topaz,
 * OPA…): `POST /access/v1/evaluation` with the token's `sub` as a `user` subject, the rule's
 * action and resource. Only `decision: true` allows. It fails closed: a network error, the
 * deadline, any status but 200 or a body without a boolean `decision` is
 * {@link AuthorizerUnavailableError} (503), never an allow.
 */
export function createAuthzenAuthorizer(options: AuthzenAuthorizerOptions): Authorizer {
  const endpoint = new URL('/access/v1/evaluation', options.url);
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') throw new TypeError(`AuthZEN PDP URL must be http(s): ${options.url}`);
  const timeoutMs = options.timeoutMs ?? 2_000;
  const baseHeaders = { ...options.headers, 'content-type': 'application/json', accept: 'application/json' };

  return {
    kind: 'authzen',
    async authorize(request): Promise<AuthorizationDecision> {
      const body = JSON.stringify(toEvaluation(request, options.subjectProperties?.(request)));
      const headers: Record<string, string> = { ...baseHeaders };
      if (request.requestId !== undefined && FORWARDED_REQUEST_ID.test(request.requestId)) headers['x-request-id'] = request.requestId;
      let status: number;
      let text: string;
      try {
        const res = await fetch(endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
        status = res.status;
        text = await readBounded(res);
      } catch (err) {
        const reason = (err as { cause?: { code?: unknown } }).cause?.code ?? (err as Error).name;
        throw new AuthorizerUnavailableError(`AuthZEN PDP unreachable (${String(reason)})`);
      }
      if (status !== 200) throw new AuthorizerUnavailableError(`AuthZEN PDP answered ${status}`);
      let decision: unknown;
      try {
        decision = (JSON.parse(text) as { decision?: unknown }).decision;
      } catch {
        decision = undefined;
      }
      if (typeof decision !== 'boolean') throw new AuthorizerUnavailableError('AuthZEN PDP sent no boolean decision');
      return { allowed: decision, policyPath: request.policyPath };
    },
    async close() {},
  };
}
