import { createServer } from 'node:net';
import { localBase, type Component, type ProbeAnswer } from './components';

/** Whether `host:port` can be bound right now (the component would get EADDRINUSE otherwise). */
export function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** One request to the component's identity path; `undefined` when nothing answers HTTP. */
async function probe(base: string, path: string): Promise<ProbeAnswer | undefined> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 2000); // ref'd: keeps the launcher alive meanwhile
  try {
    const res = await fetch(`${base}${path}`, { signal: controller.signal });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: res.status, wwwAuthenticate: res.headers.get('www-authenticate'), body };
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the Outpost component `c` answers at `base` (its identity request, not just any HTTP). */
export async function answersAs(c: Pick<Component, 'identity'>, base: string): Promise<boolean> {
  const answer = await probe(base, c.identity.path);
  return answer !== undefined && c.identity.matches(answer);
}

/**
 * Checks every component's port before anything starts, so a second `npm start` fails at
 * once instead of half-starting next to the first. Returns one line per problem (none when
 * every port is free): a port held by this stack says "already running", any other holder
 * is named as another program with the variable that moves the component.
 */
export async function findPortConflicts(components: readonly Component[], host: string): Promise<string[]> {
  const problems: string[] = [];
  let alreadyRunning = false;
  for (const c of components) {
    if (await isPortFree(host, c.port)) continue;
    if (await answersAs(c, localBase(host, c.port))) {
      if (!alreadyRunning) {
        problems.push(`Outpost is already running (${c.url} answers as the Outpost ${c.label}); stop it first (Ctrl+C in its terminal)`);
      }
      alreadyRunning = true;
    } else {
      problems.push(portInUseHint(c));
    }
  }
  return problems;
}

/** The line shown whenever a component's port is held by something else. */
export function portInUseHint(c: Pick<Component, 'port' | 'portVar' | 'label'>): string {
  return `port ${c.port} is in use by another program (set ${c.portVar}=… to move the ${c.label})`;
}
