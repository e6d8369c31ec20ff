import { apiErrors, errorInShape, httpError, isCodeAt, oauthError } from '../../src/http';

describe('errors built from the table of codes', () => {
  it('take the status and message of their code, unless the site gives a message of its own', () => {
    expect(httpError('instance_not_found')).toMatchObject({ status: 404, code: 'instance_not_found', message: 'no instance with this id is registered for the tenant' });
    expect(httpError('edge_timeout', 'the edge did not confirm the command within 5 ms').toBody()).toEqual({ code: 'edge_timeout', message: 'the edge did not confirm the command within 5 ms' });
    expect(httpError('no_image', 'no image', { status: 502 }).status).toBe(502);
    expect(oauthError('invalid_request', 'use POST', { status: 405, headers: { Allow: 'POST' } })).toMatchObject({ status: 405, headers: { Allow: 'POST' } });
    expect(oauthError('unsupported_grant_type').toBody()).toEqual({ error: 'unsupported_grant_type', error_description: 'only the password grant is supported' });
    expect(errorInShape('oauth', 'server_error', 'storage is full', { status: 507 }).toBody()).toEqual({ error: 'server_error', error_description: 'storage is full' });
  });

  it("carry the code's Retry-After, which a site's own, in any spelling, replaces", () => {
    expect(httpError('too_many_pending').headers).toEqual({ 'Retry-After': '1' });
    expect(httpError('too_many_streams', 'x', { headers: { 'retry-after': '9' } }).headers).toEqual({ 'retry-after': '9' });
    expect(httpError('instance_not_connected').headers).toEqual({});
  });

  it("keep the log-only detail out of the body", () => {
    const error = httpError('server_error', undefined, { detail: 'another node answered 418 teapot' });
    expect(error.detail).toBe('another node answered 418 teapot');
    expect(error.toBody()).toEqual({ code: 'server_error', message: 'internal error' });
  });

  it('tell a code of the table at one of its statuses from anything else', () => {
    expect(isCodeAt('no_directory', 502)).toBe(true);
    expect(isCodeAt('no_directory', 500)).toBe(false);
    expect(isCodeAt('toString', 502)).toBe(false);
    expect(isCodeAt('unauthorized_by_the_edge', 502)).toBe(false);
  });
});

describe('error responses of a route table', () => {
  it('group the codes by status, describe each, and name exactly them in the body schema', () => {
    const responses = apiErrors(['bad_request', 'unknown_command', { code: 'instance_not_connected', when: 'not connected' }, 'instance_disconnected']);
    expect(Object.keys(responses)).toEqual(['400', '409']);
    expect(responses[409]!.description).toBe('`instance_not_connected`: not connected; `instance_disconnected`: the instance disconnected before confirming the command');
    expect(responses[409]!.schema!.safeParse({ code: 'instance_disconnected', message: 'x' }).success).toBe(true);
    expect(responses[409]!.schema!.safeParse({ code: 'conflict', message: 'x' }).success).toBe(false);
  });

  it('take either shape where a status carries both', () => {
    const responses = apiErrors([{ code: 'invalid_request', shape: 'oauth' }, 'bad_request']);
    expect(responses[400]!.schema!.safeParse({ error: 'invalid_request', error_description: 'x' }).success).toBe(true);
    expect(responses[400]!.schema!.safeParse({ code: 'bad_request', message: 'x' }).success).toBe(true);
    expect(responses[400]!.schema!.safeParse({ error: 'bad_request', error_description: 'x' }).success).toBe(false);
  });

  it('refuse a code at a status the table never gives it', () => {
    expect(() => apiErrors([{ code: 'instance_not_found', status: 409 as 404 }])).toThrow('error code instance_not_found is never answered with 409');
    expect(Object.keys(apiErrors([{ code: 'no_directory', status: 409 }]))).toEqual(['409']);
  });
});
