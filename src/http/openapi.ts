import type { RequestHandler } from 'express';
import { z } from 'zod';

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

/** `{code, message}` errors for a list of statuses, for route tables. */
export function apiErrors(statuses: Readonly<Record<number, string>>, schema: z.ZodType = apiErrorSchema): Record<number, ApiResponse> {
  return Object.fromEntries(Object.entries(statuses).map(([status, description]) => [Number(status), { description, schema }]));
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
