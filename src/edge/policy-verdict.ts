import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readJsonFile, writeFileAtomic } from '../files';

/** Beside the persisted image (`policy-image.json`): the image this edge saw pass its own tests. */
export const VERDICT_FILE = 'policy-tests-verdict.json';

/**
 * What decides an image's tests besides the image: Cedar's build (the cedar-wasm package's
 * version) and Outpost's decision path (a digest of the Cedar package's modules,
 * packages/cedar-authorizer, as they run: built JavaScript, or its TypeScript in tests). An upgrade of
 * either makes every verdict stale, so the tests run again once.
 */
export function engineVersion(): string {
  cachedEngine ??= readEngineVersion(); // once a process: the modules do not change under it
  return cachedEngine;
}
let cachedEngine: string | undefined;

function readEngineVersion(): string {
  const cedarPackage = join(dirname(require.resolve('@cedar-policy/cedar-wasm/nodejs')), '..', 'package.json');
  const cedar = (JSON.parse(readFileSync(cedarPackage, 'utf8')) as { version: string }).version;
  const hash = createHash('sha256');
  const entry = require.resolve('@outpost/cedar-authorizer');
  const ext = entry.endsWith('.ts') ? '.ts' : '.js';
  const dir = dirname(entry);
  for (const file of readdirSync(dir).filter((f) => f.endsWith(ext) && !f.endsWith('.d.ts')).sort()) {
    hash.update(`${file}\0`).update(readFileSync(join(dir, file))).update('\0');
  }
  return `cedar-wasm ${cedar}; outpost decision ${hash.digest('hex').slice(0, 16)}`;
}

/**
 * This edge's record of the one image it last saw pass its own tests, so that a restart
 * compiles its persisted image without running them again (they cost more CPU than the
 * compile: docs/architecture.md, "Cedar's Wasm code"). The verdict names the image's digest
 * (which `verifyPolicyImage` recomputes from its content) and the engine, and carries an
 * HMAC-SHA-256 over both keyed with the edge's connection secret, which the data folder does
 * not hold: a verdict edited by hand, copied from another edge, or written for another digest
 * or engine is not this edge's, and the tests run (fail closed: an image failing them is
 * refused as before). Whoever holds the connection secret could forge one, and could as well
 * be the edge.
 */
export interface PolicyVerdicts {
  /** True when this edge recorded that the image with `digest` passed its tests under this engine. */
  passed(digest: string): boolean;
  /** Records that the image with `digest` passed its tests (replacing the earlier verdict). */
  record(digest: string): void;
}

interface VerdictFile {
  readonly digest: string;
  readonly engine: string;
  readonly mac: string;
}

export function policyVerdicts(dataDir: string, secret: string, engine: string = engineVersion()): PolicyVerdicts {
  const file = join(dataDir, VERDICT_FILE);
  const macOf = (digest: string) => createHmac('sha256', secret).update(JSON.stringify(['outpost policy-tests verdict 1', digest, engine])).digest('hex');
  return {
    passed(digest) {
      let raw: unknown;
      try {
        raw = readJsonFile(file);
      } catch {
        return false; // damaged: the tests run, and a pass writes a good one
      }
      if (typeof raw !== 'object' || raw === null) return false;
      const v = raw as Partial<VerdictFile>;
      if (v.digest !== digest || v.engine !== engine || typeof v.mac !== 'string') return false;
      const expected = Buffer.from(macOf(digest));
      const given = Buffer.from(v.mac);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
    record(digest) {
      const verdict: VerdictFile = { digest, engine, mac: macOf(digest) };
      writeFileAtomic(file, `${JSON.stringify(verdict)}\n`);
    },
  };
}
