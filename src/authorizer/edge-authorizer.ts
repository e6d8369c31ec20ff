import http from 'node:http';
import https from 'node:https';
import { AuthorizerUnavailableError, InvalidPropertyError, type AuthorizationDecision, type AuthorizationRequest, type Authorizer } from '@outpost/express-authz';

/** Options of {@link createEdgeAuthorizer}. */
export interface EdgeAuthorizerOptions {
  /** Base URL of the edge authorizer, e.g. `http://localhost:8383`. */
  readonly url: string;
  /** Deadline for one decision, connection included. Default 2,000 ms. */
  readonly timeoutMs?: number;
}

const MAX_RESPONSE_BYTES = 16 * 1024;

/** The Topaz `Is` body for one request: the principal as a SUB identity, the resource flat. */
export function toIsRequest(request: AuthorizationRequest): Record<string, unknown> {
  return {
    identity_context: { type: 'IDENTITY_TYPE_SUB', identity: request.principal },
    policy_context: { path: request.policyPath, decisions: ['allowed'] },
    // type/id last so an attribute can never override them.
    resource_context: { ...request.resource.attributes, type: request.resource.type, id: request.resource.id },
  };
}

/**
 * The property a 400 `invalid_property` body names, so the app answers 400 as the edge did
 * (the request, not the authorizer, was wrong); undefined for any other answer.
 */
function readInvalidProperty(text: string): { property: string; expected: string } | undefined {
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown };
    if (body.code !== 'invalid_property' || typeof body.message !== 'string') return undefined;
    const match = /^resource property "([^"]{1,64})" must be (.{1,200})$/.exec(body.message);
    return match ? { property: match[1]!, expected: match[2]! } : undefined;
  } catch {
    return undefined;
  }
}

/** Reads `decisions[0].is` from a 200 body; `undefined` if the body is not what the edge sends. */
function readAllowed(text: string): boolean | undefined {
  try {
    const body = JSON.parse(text) as { decisions?: Array<{ decision?: unknown; is?: unknown }> };
    const first = Array.isArray(body.decisions) ? body.decisions[0] : undefined;
    return first?.decision === 'allowed' && typeof first.is === 'boolean' ? first.is : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `edge` authorizer: asks an edge authorizer over HTTP (`POST /api/v2/authz/is`).
 * Connections are kept alive and reused — a decision on a warm connection costs one
 * loopback round trip, no TCP handshake. It fails closed: a network error, the deadline,
 * any status but 200 or an unexpected body throws {@link AuthorizerUnavailableError}
 * (the app answers 503), never an allow — except a 400 `invalid_property`, the request's
 * own mistake, which stays a 400 ({@link InvalidPropertyError}). It is ready while the edge's `GET /readyz` answers
 * 200 within the same deadline.
 */
/** A request id the edge takes as its own (the rule of `requestIdFor`); any other is not sent. */
const FORWARDED_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export function createEdgeAuthorizer(options: EdgeAuthorizerOptions): Authorizer {
  const endpoint = new URL('/api/v2/authz/is', options.url);
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') throw new Error(`edge URL must be http(s): ${options.url}`);
  const transport = endpoint.protocol === 'https:' ? https : http;
  const timeoutMs = options.timeoutMs ?? 2_000;
  const agent = new transport.Agent({ keepAlive: true, maxSockets: 64, keepAliveMsecs: 1_000 });

  function post(payload: string, requestId: string | undefined): Promise<{ status: number; text: string }> {
    // The app's request id travels on, so the edge's decision record names the app's request (docs/reference/api.md, "Decision records").
    const forwarded = requestId !== undefined && FORWARDED_REQUEST_ID.test(requestId) ? { 'x-request-id': requestId } : {};
    return new Promise((resolve, reject) => {
      const req = transport.request(
        endpoint,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), accept: 'application/json', ...forwarded },
          signal: AbortSignal.timeout(timeoutMs),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) req.destroy(new Error('response too large'));
            else chunks.push(chunk);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  const readyz = new URL('/readyz', options.url);
  // Readiness is the edge's own: an app whose every decision would be 503 is not ready either.
  function edgeReady(): Promise<boolean> {
    return new Promise((resolve) => {
      const req = transport.get(readyz, { agent, signal: AbortSignal.timeout(timeoutMs) }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
        res.on('error', () => resolve(false));
      });
      req.on('error', () => resolve(false));
    });
  }

  return {
    kind: 'edge',
    ready: edgeReady,
    async authorize(request): Promise<AuthorizationDecision> {
      let answer: { status: number; text: string };
      try {
        answer = await post(JSON.stringify(toIsRequest(request)), request.requestId);
      } catch (err) {
        const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).name;
        throw new AuthorizerUnavailableError(`edge authorizer unreachable (${reason})`);
      }
      const invalid = answer.status === 400 ? readInvalidProperty(answer.text) : undefined;
      if (invalid) throw new InvalidPropertyError(invalid.property, invalid.expected);
      if (answer.status !== 200) throw new AuthorizerUnavailableError(`edge authorizer answered ${answer.status}`);
      const allowed = readAllowed(answer.text);
      if (allowed === undefined) throw new AuthorizerUnavailableError('edge authorizer sent an unexpected body');
      return { allowed, policyPath: request.policyPath };
    },
    async close() {
      agent.destroy();
    },
  };
}
