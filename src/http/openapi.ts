import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { ErrorShape } from './error-handler';
import { ERROR_CODES, statusesOf, type ErrorCode, type StatusOf } from './error-codes';

/** An HTTP method as OpenAPI names it. */
export type ApiMethod = 'get' | 'post' | 'put' | 'delete';

/** One documented answer of a route: its meaning and, for JSON bodies, the zod schema. */
export interface ApiResponse {
  readonly description: string;
  /** The JSON body; absent for bodies that are not JSON (text, HTML, redirects, 204). */
  readonly schema?: z.ZodType;
  /** Content type of a body that is not JSON (e.g. `text/plain`). */
  readonly contentType?: string;
}

/**
 * One route of a component: where it is, what it takes and what it answers. The schemas
 * are the zod schemas the handlers validate with wherever one exists, so the document and
 * the code cannot drift apart.
 */
export interface ApiRoute {
  readonly method: ApiMethod;
  /** OpenAPI path template, e.g. `/todos/{id}`. */
  readonly path: string;
  readonly summary: string;
  /** The body by content type (a route may take JSON and a form alike). */
  readonly requestBody?: { readonly content: Readonly<Record<string, z.ZodType>> };
  readonly responses: Readonly<Record<number, ApiResponse>>;
}

/** The `{code, message}` body of every Outpost API error (extra members such as `problems` allowed). */
export const apiErrorSchema = z.looseObject({ code: z.string(), message: z.string() });

/** The RFC 6749 §5.2 / RFC 6750 §3 error body of the IdP and the bearer middleware. */
export const oauthErrorSchema = z.looseObject({ error: z.string(), error_description: z.string() });

/**
 * One error a route answers: a code of {@link ERROR_CODES}, at its usual status unless `status`
 * names another of its statuses, meaning `when` on this route (the table's message otherwise),
 * in the component's body shape unless `shape` says otherwise.
 */
export type RouteError = ErrorCode | { [C in ErrorCode]: { readonly code: C; readonly status?: StatusOf<C>; readonly when?: string; readonly shape?: ErrorShape } }[ErrorCode];

/** A 400 `bad_request` meaning `when` on this route. */
export const badRequest = (when: string): RouteError => ({ code: 'bad_request', when });

const bodyOf = (shape: ErrorShape, codes: readonly string[]) =>
  shape === 'oauth' ? oauthErrorSchema.extend({ error: z.enum(codes) }) : apiErrorSchema.extend({ code: z.enum(codes) });

/**
 * A route's error responses, from the table: per status, the codes it may carry (the body
 * schema names exactly them) and what each means. `shape` is the component's body shape.
 */
export function apiErrors(errors: readonly RouteError[], shape: ErrorShape = 'api'): Record<number, ApiResponse> {
  const byStatus = new Map<number, { code: ErrorCode; when: string; shape: ErrorShape }[]>();
  for (const error of errors) {
    const { code, status, when, shape: own } = typeof error === 'string' ? { code: error } : error;
    const at = status ?? statusesOf(code)[0]!;
    if (!statusesOf(code).includes(at)) throw new Error(`error code ${code} is never answered with ${at} (src/http/error-codes.ts)`);
    const listed = byStatus.get(at) ?? [];
    byStatus.set(at, [...listed, { code, when: when ?? ERROR_CODES[code].message, shape: own ?? shape }]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, listed]) => {
      const description = listed.map((e) => `\`${e.code}\`: ${e.when}`).join('; ');
      const shapes = (['api', 'oauth'] as const).filter((s) => listed.some((e) => e.shape === s));
      const bodies = shapes.map((s) => bodyOf(s, [...new Set(listed.filter((e) => e.shape === s).map((e) => e.code))]));
      return [status, { description, schema: bodies.length === 1 ? bodies[0]! : z.union(bodies) }];
    }),
  );
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): unknown {
  // Transforms (URL trimming, alias mapping) have no JSON Schema: describe their input side.
  return z.toJSONSchema(schema, { io, unrepresentable: 'any' });
}

/** The path parameters of a template, in order (`/a/{x}/b/{y}` → `['x', 'y']`). */
function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}

/** Builds an OpenAPI 3.1 document from a component's route table. */
export function buildOpenApiDocument(info: { title: string; version: string; description?: string }, routes: readonly ApiRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const responses = Object.fromEntries(
      Object.entries(route.responses).map(([status, r]) => {
        const content = r.schema
          ? { 'application/json': { schema: jsonSchema(r.schema, 'output') } }
          : r.contentType
            ? { [r.contentType]: {} }
            : undefined;
        return [status, content ? { description: r.description, content } : { description: r.description }];
      }),
    );
    const parameters = pathParameters(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    (paths[route.path] ??= {})[route.method] = {
      summary: route.summary,
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.requestBody
        ? {
            requestBody: {
              required: true,
              content: Object.fromEntries(Object.entries(route.requestBody.content).map(([type, schema]) => [type, { schema: jsonSchema(schema, 'input') }])),
            },
          }
        : {}),
      responses,
    };
  }
  return { openapi: '3.1.0', info, paths };
}

/** `GET /openapi.json`: the component's document, built once. */
export function serveOpenApi(document: ReturnType<typeof buildOpenApiDocument>): RequestHandler {
  const body = JSON.stringify(document);
  return function openApi(_req, res) {
    res.type('application/json').set('Cache-Control', 'no-cache').send(body);
  };
}

/** The route of `routes` that serves `method path` (a concrete path), if any. */
export function findApiRoute(routes: readonly ApiRoute[], method: string, path: string): ApiRoute | undefined {
  return routes.find((r) => {
    if (r.method !== method.toLowerCase()) return false;
    const pattern = new RegExp(`^${r.path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    return pattern.test(path);
  });
}

/** The path OpenAPI serves the document at. */
export const OPENAPI_PATH = '/openapi.json';
