import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** TCP state LISTEN in /proc/net/tcp{,6} (include/net/tcp_states.h). */
const LISTEN = '0A';

/** Inodes of the sockets listening on `port` in this network namespace; undefined without /proc. */
function listeningInodes(port: number): Set<string> | undefined {
  const inodes = new Set<string>();
  let readAny = false;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    readAny = true;
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== LISTEN) continue;
      const localPort = Number.parseInt(fields[1]!.split(':')[1] ?? '', 16);
      if (localPort === port) inodes.add(fields[9]!);
    }
  }
  return readAny ? inodes : undefined;
}

/**
 * Whether process `pid` holds a socket listening on `port` (Linux: /proc/net/tcp{,6} and the
 * process's open files). A readiness probe alone cannot tell the component it started from
 * another process already on the port: that one answers 200 while the child dies with
 * EADDRINUSE. False for a process that no longer exists; undefined where /proc does not tell
 * (the probe's answer then stands alone).
 */
export function holdsListeningSocket(pid: number | undefined, port: number): boolean | undefined {
  if (pid === undefined) return undefined;
  const inodes = listeningInodes(port);
  if (inodes === undefined) return undefined;
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch (err) {
    // Gone (it exited and was reaped, e.g. while its port was probed): it holds nothing. Another
    // user's process (EACCES) cannot be told.
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? false : undefined;
  }
  for (const fd of fds) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed since it was listed
    }
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match && inodes.has(match[1]!)) return true;
  }
  return false;
}
