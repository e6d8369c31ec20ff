import { z } from 'zod';
import { directoryChangeSchema, directoryDataSchema, type DirectoryChange, type DirectoryData } from '../directory';
import { fetchBeforeDeadline, FetchFailure, type TimedResponse } from './fetch-before-deadline';
import { MAX_CONTROL_PLANE_RESPONSE_BYTES, readBoundedBody } from './read-bounded-body';
import { systemTimers, type Timers } from './timers';

/** The edge's connection credentials, sent as RFC 7617 Basic on every request and at the upgrade. */
export interface EdgeCredentials {
  readonly connectionId: string;
  readonly connectionSecret: string;
}

/** `Authorization: Basic base64(connection_id:connection_secret)` (RFC 7617 §2). */
export function basicAuthorization(credentials: EdgeCredentials): string {
  const pair = `${credentials.connectionId}:${credentials.connectionSecret}`;
  return `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
}

/** The control plane answered something the edge cannot use; `code` is stable, for command results. */
export class ControlPlaneError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ControlPlaneError';
  }
}

/** A directory replica: the central directory's data at `revision`. */
export const directoryReplicaSchema = directoryDataSchema.extend({ revision: z.number().int().min(0) });

const changesSchema = z.object({ revision: z.number().int().min(0), changes: z.array(directoryChangeSchema) });

/** Answer of the conditional image download: the raw image JSON, or "not modified". */
export type ImageDownload = { readonly status: 'unchanged' } | { readonly status: 'downloaded'; readonly body: unknown };

/** Answer of the incremental directory sync. */
export type ChangesDownload =
  | { readonly status: 'resync_required' }
  | { readonly status: 'changes'; readonly revision: number; readonly changes: readonly DirectoryChange[] };

/**
 * The edge-facing HTTP API of the control plane (`/api/v2/edge/*`). `deadline` (on the
 * client's `now` clock) is a relay command's: a request that times out is tried again while
 * it leaves room ({@link fetchBeforeDeadline}); without one, one try of the client's time-out.
 */
export interface ControlPlaneClient {
  getPolicyImage(currentDigest: string | undefined, deadline?: number): Promise<ImageDownload>;
  getDirectory(deadline?: number): Promise<DirectoryData>;
  getDirectoryChanges(since: number, deadline?: number): Promise<ChangesDownload>;
  /** Aborts every request in flight and any later one (shutdown must not wait on a hung peer). */
  abort(): void;
}

/** Creates the client; every request carries the connection credentials and a time limit. */
export function createControlPlaneClient(options: {
  relayUrl: string;
  credentials: EdgeCredentials;
  /** The longest one request waits (default 10 s). */
  timeoutMs?: number;
  /** Largest response body read (default {@link MAX_CONTROL_PLANE_RESPONSE_BYTES}); more is a `response_too_large` error. */
  maxResponseBytes?: number;
  /** For the time limits and the pause between tries; injected for tests. */
  timers?: Timers;
  now?: () => number;
  random?: () => number;
}): ControlPlaneClient {
  const base = options.relayUrl.replace(/\/+$/, '');
  const authorization = basicAuthorization(options.credentials);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxResponseBytes ?? MAX_CONTROL_PLANE_RESPONSE_BYTES;
  const shutdown = new AbortController();
  const timing = { timeoutMs, shutdown: shutdown.signal, timers: options.timers ?? systemTimers, now: options.now ?? Date.now, random: options.random ?? Math.random };

  /**
   * Sends one GET and hands its response to `read`, with the try's timer still running while
   * the body is read. Network failures carry no secret, but their cause can be long: the
   * message keeps its code, or the time limit that ran out, and names the request.
   */
  async function get<T>(path: string, deadline: number | undefined, read: (response: Response, timedOut: () => string | undefined) => Promise<T>, headers: Record<string, string> = {}): Promise<T> {
    const what = `GET ${path.split('?')[0]}`;
    let timed: TimedResponse;
    try {
      timed = await fetchBeforeDeadline(`${base}${path}`, what, { headers: { accept: 'application/json', authorization, ...headers } }, { ...timing, deadline });
    } catch (err) {
      if (err instanceof FetchFailure) throw new ControlPlaneError('control_plane_unavailable', err.message);
      throw err;
    }
    const { response, release } = timed;
    const timedOut = () => (timed.timedOut() ? `control plane did not finish its answer within ${timed.limitMs} ms (${what})` : undefined);
    try {
      return await read(response, timedOut);
    } finally {
      release();
    }
  }

  /** Parses a bounded body; `undefined` when it is not JSON. */
  async function readJson(response: Response, what: string, timedOut: () => string | undefined): Promise<unknown> {
    let text: string | undefined;
    try {
      text = await readBoundedBody(response, maxBytes);
    } catch {
      throw new ControlPlaneError('control_plane_unavailable', timedOut() ?? `${what}: the response was cut off`);
    }
    if (text === undefined) throw new ControlPlaneError('response_too_large', `${what}: response is larger than ${maxBytes} bytes`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }

  async function json(response: Response, what: string, timedOut: () => string | undefined): Promise<unknown> {
    const body = await readJson(response, what, timedOut);
    if (response.status === 200) {
      if (body === undefined) throw new ControlPlaneError('bad_response', `${what}: response is not JSON`);
      return body;
    }
    const reported = (body ?? {}) as { code?: unknown };
    const code = typeof reported.code === 'string' ? reported.code : `http_${response.status}`;
    throw new ControlPlaneError(code, `${what}: control plane answered ${response.status} ${code}`);
  }

  return {
    abort: () => shutdown.abort(),
    getPolicyImage(currentDigest, deadline) {
      // RFC 9110 §13.1.2: If-None-Match with the strong ETag of the image we hold.
      const conditional: Record<string, string> = currentDigest ? { 'if-none-match': `"${currentDigest}"` } : {};
      return get<ImageDownload>('/api/v2/edge/policy-image', deadline, async (response, timedOut) => {
        if (response.status === 304) {
          await response.body?.cancel();
          return { status: 'unchanged' };
        }
        return { status: 'downloaded', body: await json(response, 'policy image', timedOut) };
      }, conditional);
    },
    getDirectory(deadline) {
      return get('/api/v2/edge/directory', deadline, async (response, timedOut) => {
        const parsed = directoryReplicaSchema.safeParse(await json(response, 'directory', timedOut));
        if (!parsed.success) throw new ControlPlaneError('bad_response', 'directory: snapshot does not match the schema');
        return parsed.data;
      });
    },
    getDirectoryChanges(since, deadline) {
      return get<ChangesDownload>(`/api/v2/edge/directory/changes?since=${since}`, deadline, async (response, timedOut) => {
        if (response.status === 410) {
          await response.body?.cancel();
          return { status: 'resync_required' };
        }
        const parsed = changesSchema.safeParse(await json(response, 'directory changes', timedOut));
        if (!parsed.success) throw new ControlPlaneError('bad_response', 'directory changes: body does not match the schema');
        return { status: 'changes', revision: parsed.data.revision, changes: parsed.data.changes };
      });
    },
  };
}
