import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { acquireFileLock, type HeldLock } from './with-file-lock';

/** The lock is held by another live process (or by this one, elsewhere). */
export class DirectoryLockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DirectoryLockedError';
  }
}

/**
 * The Linux abstract-namespace socket address that stands for `dir`: `purpose` and a hash of
 * the directory's real path (so `./x`, `/abs/x` and a symlink to it are one lock), at most
 * 78 bytes of the 107 allowed. Shown with a leading `@`, as `ss -xl` prints it.
 */
export function directoryLockAddress(dir: string, purpose: string): string {
  return `\0outpost-${purpose}-${createHash('sha256').update(realpathSync(dir)).digest('hex')}`;
}

/** Binds the abstract socket: resolves with the listening server, rejects with EADDRINUSE while another process holds it. */
function bindAbstract(address: string): Promise<Server> {
  // Nothing is ever served: a process that connects is hung up on at once.
  const server = createServer((socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // exclusive: never share the handle with cluster workers; each process holds its own.
    server.listen({ path: address, exclusive: true }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/**
 * Takes "one process per directory" for as long as the caller likes (the edge's one edge per
 * data directory), refusing at once — never waiting — when a live process holds it.
 *
 * On Linux the lock is an abstract-namespace Unix socket bound to {@link directoryLockAddress}:
 * the kernel closes it when the process ends, however it ends (SIGKILL, OOM, a crash), before
 * the dead process is even reaped, and it names no pid, so a lock left by a container's PID 1
 * cannot look alive to the next PID 1. Abstract names live in the network namespace: processes
 * that share a directory but not a network namespace (two containers on one volume) do not see
 * each other's lock. Elsewhere, where abstract sockets do not exist, it is `<dir>/<purpose>.lock`
 * holding the pid ({@link acquireFileLock}), cleared when that pid no longer runs.
 *
 * The socket is unref'd: holding the lock never keeps a process alive on its own.
 * @throws DirectoryLockedError naming the directory and the lock when another process holds it.
 */
export async function acquireDirectoryLock(dir: string, purpose: string): Promise<HeldLock> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== 'linux') {
    try {
      return acquireFileLock(join(dir, `${purpose}.lock`));
    } catch (err) {
      throw new DirectoryLockedError((err as Error).message);
    }
  }
  const address = directoryLockAddress(dir, purpose);
  let server: Server;
  try {
    server = await bindAbstract(address);
  } catch (err) {
    const shown = `@${address.slice(1)}`;
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new DirectoryLockedError(`${dir}: lock ${shown} is held by a running process`);
    throw new Error(`${dir}: cannot take lock ${shown}: ${(err as Error).message}`, { cause: err });
  }
  server.unref();
  let held = true;
  return {
    release() {
      if (held) server.close();
      held = false;
    },
  };
}
