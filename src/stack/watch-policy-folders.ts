import { watch, type FSWatcher } from 'node:fs';
import { describePolicyFolderSync, type PolicyFolderSync } from '../config';
import { policyFolder, syncPolicyFolder, type PolicyRegistry } from '../control-plane';

/** What {@link watchPolicyFolders} watches, and where it pushes. */
export interface WatchPolicyFoldersOptions {
  /** The project's `policies/`. */
  readonly policiesDir: string;
  /** The folders to keep pushed: the policies the edges serve. */
  readonly names: readonly string[];
  readonly registry: PolicyRegistry;
  /** `EDGE_POLICY_SIGNING_KEYS` is set: nothing is pushed unsigned. */
  readonly edgesPinKeys: boolean;
  readonly signingKeyFile?: string;
  /** Each folder's outcome once a save was handled (unchanged included). */
  readonly onSync: (result: PolicyFolderSync) => void;
  /** A save the registry could not be asked about, or the watch itself failing; the message says what to do. */
  readonly onError: (folder: string, err: Error) => void;
  /** How long a folder must be quiet before it is read: an editor's save is often several writes. */
  readonly quietMs?: number;
  /** Starts the recursive watch; `fs.watch` by default (a test reaches the watcher through it). */
  readonly watchFolder?: (dir: string, listener: (event: string, filename: string | null) => void) => FSWatcher;
}

/** The running watch; `close` stops it (a sync under way finishes). */
export interface PolicyFolderWatch {
  close(): void;
}

/** The default quiet time: long enough for an editor's write-rename, short beside a human's next look. */
export const POLICY_WATCH_QUIET_MS = 150;

/**
 * `npm run dev`: pushes a served policy folder as it is saved, through the same
 * {@link syncPolicyFolder} `npm start` runs at start-up (pushed when its digest differs from
 * the tenant's latest; not unsigned where keys are pinned; a folder that does not compile or
 * fails its tests is named with file:line and not pushed). One sync per folder at a time; a
 * save during one gets exactly one more after it.
 */
export function watchPolicyFolders(options: WatchPolicyFoldersOptions): PolicyFolderWatch {
  const quietMs = options.quietMs ?? POLICY_WATCH_QUIET_MS;
  const served = new Set(options.names);
  const state = new Map<string, { timer?: NodeJS.Timeout; running: boolean; again: boolean }>();
  let closed = false;

  async function run(name: string): Promise<void> {
    const entry = state.get(name)!;
    if (entry.running) {
      entry.again = true;
      return;
    }
    entry.running = true;
    try {
      do {
        entry.again = false;
        const folder = policyFolder(options.policiesDir, name);
        try {
          const result = await syncPolicyFolder(options.registry, {
            ...folder,
            edgesPinKeys: options.edgesPinKeys,
            ...(options.signingKeyFile === undefined ? {} : { signingKeyFile: options.signingKeyFile }),
          });
          if (!closed) options.onSync(result);
        } catch (err) {
          if (!closed) options.onError(folder.shown, new Error(`could not ask the control plane (${(err as Error).message}); save again once it answers`));
        }
      } while (entry.again && !closed);
    } finally {
      entry.running = false;
    }
  }

  function saw(filename: string | null): void {
    if (closed || filename === null) return;
    const name = filename.split(/[\\/]/)[0]!;
    if (!served.has(name)) return;
    const entry = state.get(name) ?? { running: false, again: false };
    state.set(name, entry);
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => void run(name), quietMs);
  }

  // Recursive: a save in tests/ changes the image too (Linux, macOS and Windows on Node 20+).
  const watchFolder = options.watchFolder ?? ((dir, listener) => watch(dir, { recursive: true }, listener));
  const watcher = watchFolder(options.policiesDir, (_event, filename) => saw(filename));
  // A watch that fails (policies/ removed) ends; the stack runs on, and a start pushes again.
  watcher.on('error', (err) => options.onError('policies/', new Error(`stopped watching (${err.message}); the next start pushes what changed`)));
  return {
    close() {
      closed = true;
      watcher.close();
      for (const entry of state.values()) clearTimeout(entry.timer);
    },
  };
}

/** The lines `npm run dev` prints for a handled save: what became of the folder (an unchanged one: that the save changed nothing the edges see). */
export function describeSavedFolder(result: PolicyFolderSync): string {
  return describePolicyFolderSync(result) ?? `${result.folder}: saved, no change to the image the edges hold`;
}
