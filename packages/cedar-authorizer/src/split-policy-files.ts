import { withCedar } from './cedar-engine';
import { POLICY_EXTENSION, sortedPaths, type PolicyImage } from './policy-image';
import { lineOfIndex, locateCedarError } from './source-lines';

/** One policy of an image, with where it came from. Its id is `<file>:<line>`. */
export interface PolicySource {
  readonly id: string;
  readonly file: string;
  /** Line of `file` on which the policy (with its annotations) starts. */
  readonly line: number;
  readonly text: string;
}

/**
 * Splits every `*.cedar` file of an image into single policies, each identified by
 * `<file>:<line>`. Cedar then reports decision reasons and validation errors by these
 * ids, and source offsets relative to one policy's text, which map back to the file.
 * Parse errors are returned as `<file>:<line>: <message>` problems.
 */
export function splitPolicyFiles(image: PolicyImage): { sources: PolicySource[]; problems: string[] } {
  const sources: PolicySource[] = [];
  const problems: string[] = [];
  for (const file of sortedPaths(image.files).filter((p) => p.endsWith(POLICY_EXTENSION))) {
    const text = image.files[file] as string;
    const parsed = withCedar('policy parse', (cedar) => cedar.checkParsePolicySet({ staticPolicies: text }));
    if (parsed.type === 'failure') {
      problems.push(...parsed.errors.map((e) => locateCedarError(e, file, text)));
      continue;
    }
    const parts = withCedar('policy parse', (cedar) => cedar.policySetTextToParts(text));
    if (parts.type === 'failure') {
      problems.push(...parts.errors.map((e) => locateCedarError(e, file, text)));
      continue;
    }
    if (parts.policy_templates.length > 0) problems.push(`${file}: policy templates are not supported`);
    // Parts come back as exact source slices but sorted by Cedar's internal ids, so
    // find each one in the file (claiming positions, in case two policies are equal).
    const claimed = new Set<number>();
    for (const part of parts.policies) {
      let at = text.indexOf(part);
      while (at !== -1 && claimed.has(at)) at = text.indexOf(part, at + 1);
      if (at === -1) {
        problems.push(`${file}: cannot locate a policy in the source`);
        continue;
      }
      claimed.add(at);
      const line = lineOfIndex(text, at);
      const taken = sources.some((s) => s.id === `${file}:${line}`);
      sources.push({ id: taken ? `${file}:${line}:${at}` : `${file}:${line}`, file, line, text: part });
    }
  }
  sources.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
  return { sources, problems };
}
