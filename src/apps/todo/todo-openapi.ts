import { z } from 'zod';
import { apiErrors, buildOpenApiDocument, type ApiRoute, type RouteError } from '../../http';
import { APP_BEARER, APP_REFUSALS, HEALTH_ROUTE, READY_ROUTE } from '../app-openapi';
import { createTodoBody, updateTodoBody } from './todo-schemas';

const todo = z.strictObject({
  id: z.string(),
  title: z.string(),
  completed: z.boolean(),
  owner_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
const notFound: RouteError = { code: 'not_found', when: 'no such todo or user' };
const conflict: RouteError = { code: 'conflict', when: 'the todo was deleted meanwhile' };
const invalidBody: RouteError = { code: 'invalid_body', when: 'the body does not match the shape (names the field)' };

/** Every JSON route of the todo sample app (its web page is static files). */
/** One button of the page: may the caller press it, and why (null when the authorizer cannot say). */
const permission = z.strictObject({ allowed: z.boolean(), why: z.string().nullable() });
const todoPermissions = z.strictObject({
  can_create_todo: permission,
  todos: z.record(z.string(), z.strictObject({ can_update_todo: permission, can_delete_todo: permission })),
});

export const TODO_ROUTES: readonly ApiRoute[] = [
  HEALTH_ROUTE,
  READY_ROUTE,
  {
    method: 'get',
    path: '/config.json',
    summary: 'Where and as whom the page signs in',
    responses: { 200: { description: 'the IdP and the client id', schema: z.strictObject({ auth_url: z.string().nullable(), client_id: z.string() }) } },
  },
  {
    method: 'get',
    path: '/todos',
    summary:
      'Every todo; with `?can=update` or `?can=delete`, only those the policy lets the caller change that way (one decision per todo); with `?permissions`, also what the caller may do (add, and update and delete each todo) and why',
    responses: { 200: { description: 'the todos', schema: z.strictObject({ todos: z.array(todo), permissions: todoPermissions.optional() }) }, ...apiErrors([...APP_REFUSALS, { code: 'invalid_query', when: 'can is not update or delete' }]) },
  },
  {
    method: 'get',
    path: '/todos/export',
    summary: 'Every todo, for a machine: an access token with the `api` scope (the `outpost-machine` client credentials token); a user token is 403 `insufficient_scope`',
    responses: {
      200: { description: 'the todos', schema: z.strictObject({ todos: z.array(todo) }) },
      ...apiErrors([...APP_BEARER, { code: 'insufficient_scope', shape: 'oauth', when: 'the token lacks the `api` scope (WWW-Authenticate names it)' }]),
    },
  },
  {
    method: 'post',
    path: '/todos',
    summary: 'Create a todo (editor and up); the caller owns it',
    requestBody: { content: { 'application/json': createTodoBody } },
    responses: { 201: { description: 'created', schema: todo }, ...apiErrors([...APP_REFUSALS, invalidBody, { code: 'payload_too_large', when: 'body over 4 kB' }]) },
  },
  {
    method: 'put',
    path: '/todos/{id}',
    summary: 'Change a todo (its owner, evil_genius, admin)',
    requestBody: { content: { 'application/json': updateTodoBody } },
    responses: { 200: { description: 'changed', schema: todo }, ...apiErrors([...APP_REFUSALS, invalidBody, notFound, conflict]) },
  },
  {
    method: 'delete',
    path: '/todos/{id}',
    summary: 'Delete a todo (its owner, admin)',
    responses: { 204: { description: 'deleted' }, ...apiErrors([...APP_REFUSALS, notFound, conflict]) },
  },
  {
    method: 'get',
    path: '/users/{id}',
    summary: 'A directory user by id or e-mail',
    responses: { 200: { description: 'the user', schema: z.strictObject({ id: z.string(), email: z.string(), name: z.string() }) }, ...apiErrors([...APP_REFUSALS, notFound]) },
  },
];

/** The todo app's OpenAPI 3.1 document, served at `/openapi.json`. */
export const TODO_OPENAPI = buildOpenApiDocument(
  { title: 'Outpost todo sample app', version: '0.1.0', description: 'Bearer access tokens and a Cedar policy with ownership rules.' },
  TODO_ROUTES,
);
