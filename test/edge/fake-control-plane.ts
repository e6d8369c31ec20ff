/**
 * A stand-in for the control plane's edge-facing API (`/api/v2/edge/*`), written for the
 * edge tests: it serves a real policy image and the real seed directory, keeps a change
 * log, and lets a test count, hold back or break each endpoint. The fake relay attaches
 * to the same server, as the real relay does.
 */
import { EventEmitter, once } from 'node:events';
import type { Server } from 'node:http';
import express from 'express';
import { join } from 'node:path';
import { findProjectRoot } from '../../src/config';
import { applyDirectoryChange, loadDirectorySeed, type DirectoryChange, type DirectoryData } from '../../src/directory';
import { baseUrl, close, listen } from '../../src/http';
import { readPolicyFolder, type PolicyImage } from '../../src/policy';
import { createFakeRelay, type FakeRelay } from './fake-relay';

export const root = findProjectRoot();
export const CREDENTIALS = { connectionId: 'conn-edge-test', connectionSecret: 'cs_test-secret-value' };

export function rbacImage(): PolicyImage {
  return readPolicyFolder(join(root, 'policies', 'rbac'));
}

export function seedDirectory(): DirectoryData {
  return loadDirectorySeed(join(root, 'data', 'citadel-directory.json')).directory;
}

export function userId(directory: DirectoryData, name: string): string {
  return directory.users.find((u) => u.email.startsWith(`${name}@`))!.id;
}

/** A change without its revision (the fake assigns the next one). */
export type ChangeInput = DirectoryChange extends infer C ? (C extends DirectoryChange ? Omit<C, 'rev'> : never) : never;

export interface FakeControlPlane {
  readonly url: string;
  readonly server: Server;
  readonly relay: FakeRelay;
  /** The body served at `/policy-image` (any JSON: tests serve broken images too). */
  image: PolicyImage | Record<string, unknown> | undefined;
  directory: DirectoryData;
  readonly changes: DirectoryChange[];
  /** `changes?since=` below this answers 410 (the log was truncated). */
  oldestSince: number;
  /** Holds every `/policy-image` answer until `release()`; `arrived` resolves on the next request. */
  hold(): { release(): void; arrived: Promise<void> };
  readonly counts: { image: number; notModified: number; full: number; changes: number };
  /** Resolves once `count` `/policy-image` requests in all have arrived (at once if they have). */
  imageRequests(count: number): Promise<void>;
  /** Appends a change to the log and applies it to the central directory. */
  record(change: ChangeInput): DirectoryChange;
  close(): Promise<void>;
}

function authorized(header: string | undefined): boolean {
  const expected = `Basic ${Buffer.from(`${CREDENTIALS.connectionId}:${CREDENTIALS.connectionSecret}`).toString('base64')}`;
  return header === expected;
}

/** Starts the fake on 127.0.0.1:0 with the rbac image and the seed directory. Always close it. */
export async function startFakeControlPlane(): Promise<FakeControlPlane> {
  let gate: Promise<void> | undefined;
  const events = new EventEmitter();
  const app = express();
  const fake = {
    image: rbacImage() as FakeControlPlane['image'],
    directory: seedDirectory(),
    changes: [] as DirectoryChange[],
    oldestSince: 0,
    counts: { image: 0, notModified: 0, full: 0, changes: 0 },
  };
  app.use('/api/v2/edge', (req, res, next) => {
    if (authorized(req.headers.authorization)) return next();
    res.status(401).json({ code: 'unauthorized', message: 'bad connection credentials' });
  });
  app.get('/api/v2/edge/policy-image', async (req, res) => {
    fake.counts.image += 1;
    const image = fake.image; // read before any hold: what the control plane had when asked
    events.emit('image');
    if (gate) await gate;
    if (!image) return void res.status(404).json({ code: 'no_image', message: 'no image' });
    const etag = `"${String((image as { digest?: unknown }).digest)}"`;
    if (req.headers['if-none-match'] === etag) {
      fake.counts.notModified += 1;
      return void res.status(304).end();
    }
    res.set('ETag', etag).json(image);
  });
  app.get('/api/v2/edge/directory', (_req, res) => {
    fake.counts.full += 1;
    res.set('ETag', `"${fake.directory.revision}"`).json(fake.directory);
  });
  app.get('/api/v2/edge/directory/changes', (req, res) => {
    fake.counts.changes += 1;
    const since = Number(req.query.since);
    if (!Number.isInteger(since) || since < 0) return void res.status(400).json({ code: 'bad_request', message: 'bad since' });
    if (since < fake.oldestSince) return void res.status(410).json({ code: 'resync_required', message: 'too old' });
    res.json({ revision: fake.directory.revision, changes: fake.changes.filter((c) => c.rev > since) });
  });
  const server = await listen(app, 0, '127.0.0.1');
  const relay = createFakeRelay(server, CREDENTIALS);
  return Object.assign(fake, {
    url: baseUrl(server),
    server,
    relay,
    async imageRequests(count: number) {
      while (fake.counts.image < count) await once(events, 'image');
    },
    hold() {
      let release!: () => void;
      const arrived = once(events, 'image').then(() => undefined);
      gate = new Promise<void>((resolve) => (release = resolve));
      return {
        arrived,
        release() {
          gate = undefined;
          release();
        },
      };
    },
    record(change: ChangeInput) {
      const full = { ...change, rev: fake.directory.revision + 1 } as DirectoryChange;
      fake.changes.push(full);
      fake.directory = applyDirectoryChange(fake.directory, full);
      return full;
    },
    async close() {
      await relay.close();
      server.closeAllConnections();
      await close(server);
    },
  });
}
