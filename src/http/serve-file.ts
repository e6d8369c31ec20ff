import { basename, dirname } from 'node:path';
import type { RequestHandler } from 'express';

/**
 * A route answering with one file of ours. Express's `sendFile` refuses an absolute path with
 * a dot segment anywhere in it (its dotfile rule), which would make every page file 404 — and
 * the error handler a 500 — in a checkout under `~/src/.worktrees/`. Sent by name from its
 * folder as `root`, only the name itself is checked, so where the project lives never
 * matters; the name is ours, never a request's.
 */
export function serveFile(file: string): RequestHandler {
  const root = dirname(file);
  const name = basename(file);
  return function sendOneFile(_req, res, next) {
    res.sendFile(name, { root }, (err) => {
      if (err) next(err);
    });
  };
}
