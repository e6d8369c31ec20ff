/**
 * Cedar's own integration tests (github.com/cedar-policy/cedar-integration-tests, Apache-2.0)
 * run through Outpost's policy path: each test's schema and policies become a PolicyImage,
 * compilePolicyImage validates and pre-parses it (strict mode, as Cedar's harness validates),
 * and every request is asked of CompiledPolicy.isAuthorized — the call the edge makes per
 * decision — and its decision, reasons and errors compared with the ones the test expects.
 *
 * How a test maps onto that path (nothing is left out without being counted):
 * - Policy ids: Cedar's harness names the policies of a file `policy0`, `policy1`, … in file
 *   order; Outpost names them `<file>:<line>`, also in file order. The n-th id of the one are
 *   the n-th of the other.
 * - The action: Outpost takes the action id and qualifies `Action` with the schema's namespace;
 *   a request whose action type is any other is a mismatch (none is, in the suite).
 * - A test whose policies Cedar's validator refuses (`shouldValidate: false`) is an image
 *   Outpost refuses to compile, so it can answer none of its requests: the test agrees when
 *   compilePolicyImage refuses it, and its requests are counted as `not loadable`, never as
 *   answered. A test Cedar validates that Outpost refuses is a disagreement, and so is each of
 *   its requests.
 * - Request validation: every request of the suite asks for it (Cedar's harness builds each one
 *   with the schema); Outpost always validates, so a `validateRequest: false` request is
 *   compared all the same and counted apart (there is none in the pinned suite).
 * - A refusal: the suite's requests are all valid, so a request Cedar refuses (Outpost: a deny
 *   whose only errors are `request refused by Cedar: …`, or a PolicyEvaluationError for entities
 *   that break the schema) never matches an expected answer.
 * - Not the expected answer: the request is then asked of cedar-wasm itself (isAuthorized with
 *   the test's schema text, policies and entities, from the same JavaScript values). If cedar-wasm
 *   gives Outpost's answer, the request counts as `as cedar-wasm`, apart, with the reason: a
 *   64-bit integer beyond 2^53 in the test data (JSON.parse cannot hold it and cedar-wasm's
 *   JavaScript interface takes no BigInt), or a Cedar version that answers otherwise than the
 *   one the suite was generated with. Likewise a validation verdict that is cedar-wasm's own.
 *   Anything else `disagrees`.
 */
import { gunzipSync } from 'node:zlib';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import type { EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import { compilePolicyImage, createPolicyImage, PolicyEvaluationError, PolicyValidationError, qualifyType, type CompiledPolicy } from '../../src/policy';
import type { PolicyAnswer } from '@outpost/cedar-authorizer';

/** A file of the suite by its path as the tests name it (`tests/ip/1.json`, `corpus-tests/….cedar`). */
export type SuiteReader = (path: string) => string | undefined;

interface CedarEntityRef {
  readonly type: string;
  readonly id: string;
}

export interface CedarRequest {
  readonly description: string;
  readonly principal?: CedarEntityRef;
  readonly action?: CedarEntityRef;
  readonly resource?: CedarEntityRef;
  readonly context?: Record<string, unknown>;
  readonly validateRequest?: boolean;
  readonly decision: 'allow' | 'deny' | 'Allow' | 'Deny';
  readonly reason: readonly string[];
  readonly errors: readonly string[];
}

export interface CedarTest {
  readonly policies: string;
  readonly entities: string;
  readonly schema: string;
  readonly shouldValidate: boolean;
  readonly requests: readonly CedarRequest[];
}

/**
 * One request's fate: `agrees` (the expected answer), `as cedar-wasm` (not the expected answer,
 * but exactly the one cedar-wasm — the Cedar Outpost embeds — gives when called directly with
 * the same values; `detail` says why it differs), `disagrees`, or `not loadable` (its image is
 * refused, as Cedar's validator refuses its policies).
 */
export interface RequestResult {
  readonly description: string;
  readonly outcome: 'agrees' | 'as cedar-wasm' | 'disagrees' | 'not loadable';
  readonly detail?: string;
  /** The request asked for no request validation; Outpost validated it all the same. */
  readonly unvalidated?: boolean;
}

export interface TestResult {
  readonly test: string;
  /**
   * Whether Outpost loads the image exactly when the suite expects the policies to validate
   * (`agrees`), or when cedar-wasm's own validator accepts them (`as cedar-wasm`), or neither.
   */
  readonly validation: 'agrees' | 'as cedar-wasm' | 'disagrees';
  readonly validationDetail?: string;
  /** Whether compilePolicyImage loaded the image, so its requests were asked. */
  readonly loaded: boolean;
  readonly requests: readonly RequestResult[];
}

function normalDecision(decision: string): 'allow' | 'deny' {
  return decision.toLowerCase() === 'allow' ? 'allow' : 'deny';
}

const sorted = (items: readonly string[]) => [...items].sort();

/** An answer in one form for Outpost, the test and cedar-wasm: a decision, or Cedar's refusal of the request. */
type Answer =
  | { readonly decision: 'allow' | 'deny'; readonly reason: readonly string[]; readonly errors: readonly string[] }
  | { readonly refused: readonly string[] };

const show = (answer: Answer) => JSON.stringify(answer);

/** Outpost's answer: a thrown PolicyEvaluationError or a deny with only `request refused by Cedar` errors is a refusal. */
function outpostAnswer(cedarIds: ReadonlyMap<string, string>, call: () => PolicyAnswer): Answer {
  let answer: PolicyAnswer;
  try {
    answer = call();
  } catch (err) {
    if (!(err instanceof PolicyEvaluationError)) throw err;
    return { refused: err.message.split('; ') };
  }
  const refusals = answer.errors.filter((e) => e.startsWith(REFUSED));
  if (refusals.length > 0 && refusals.length === answer.errors.length && !answer.allowed) return { refused: refusals.map((e) => e.slice(REFUSED.length)) };
  return {
    decision: answer.allowed ? 'allow' : 'deny',
    reason: sorted(answer.reasons.map((id) => cedarIds.get(id) ?? id)),
    // A policy's evaluation error is `<policy id>: <message>`; any other is the request's own.
    errors: sorted(answer.errors.map((e) => cedarIds.get(e.slice(0, e.indexOf(': '))) ?? e)),
  };
}
const REFUSED = 'request refused by Cedar: ';

/** Whether two answers are the same; a refusal matches when each of Cedar's messages is in Outpost's. */
function sameAnswer(ours: Answer, theirs: Answer): boolean {
  if ('refused' in theirs) return 'refused' in ours && theirs.refused.every((m) => ours.refused.some((o) => o.includes(m)));
  return !('refused' in ours) && show(ours) === show(theirs);
}

/** cedar-wasm's own answer to the same request, from the same JavaScript values (policy ids `policy0`, … as the harness names them). */
function cedarWasmAnswer(files: TestFiles, request: CedarRequest, entities: readonly EntityJson[]): Answer {
  const answer = cedar.isAuthorized({
    principal: request.principal as CedarEntityRef,
    action: request.action as CedarEntityRef,
    resource: request.resource as CedarEntityRef,
    context: (request.context ?? {}) as Record<string, cedar.CedarValueJson>,
    schema: files.schemaText,
    validateRequest: request.validateRequest !== false,
    policies: { staticPolicies: files.policiesText },
    entities: entities as EntityJson[],
  });
  if (answer.type === 'failure') return { refused: answer.errors.map((e) => e.message) };
  const { decision, diagnostics } = answer.response;
  return { decision, reason: sorted(diagnostics.reason), errors: sorted(diagnostics.errors.map((e) => e.policyId)) };
}

/** An integer literal JavaScript's numbers cannot hold exactly (Cedar's Long is 64-bit). */
const UNSAFE_INTEGER = /(?<![\w.])-?\d{16,}(?![\w.])/g;
function hasUnsafeInteger(json: string): boolean {
  return (json.match(UNSAFE_INTEGER) ?? []).some((n) => !Number.isSafeInteger(Number(n)));
}

interface TestFiles {
  readonly schemaText: string;
  readonly policiesText: string;
  readonly entitiesText: string;
}

function compareRequest(policy: CompiledPolicy, cedarIds: ReadonlyMap<string, string>, files: TestFiles, entities: readonly EntityJson[], request: CedarRequest): RequestResult {
  const base = { description: request.description, ...(request.validateRequest === false ? { unvalidated: true } : {}) };
  const { principal, action, resource } = request;
  if (!principal || !action || !resource) return { ...base, outcome: 'disagrees', detail: 'a request without a principal, action or resource has no Outpost form' };
  const actionType = qualifyType(policy.schema.namespace, 'Action');
  if (action.type !== actionType) return { ...base, outcome: 'disagrees', detail: `action type ${action.type} is not the schema's ${actionType}` };
  const ours = outpostAnswer(cedarIds, () => policy.isAuthorized({ principal, action: action.id, resource, context: request.context ?? {}, entities }));
  const expected: Answer = { decision: normalDecision(request.decision), reason: sorted(request.reason), errors: sorted(request.errors) };
  if (sameAnswer(ours, expected)) return { ...base, outcome: 'agrees' };
  // Not the expected answer: is it the one cedar-wasm itself gives, from the same values?
  const theirs = cedarWasmAnswer(files, request, entities);
  const detail = `expected ${show(expected)}, Outpost answered ${show(ours)}, cedar-wasm ${cedar.getCedarVersion()} answers ${show(theirs)}`;
  if (!sameAnswer(ours, theirs)) return { ...base, outcome: 'disagrees', detail };
  const why = hasUnsafeInteger(JSON.stringify(request.context ?? {})) || hasUnsafeInteger(files.entitiesText)
    ? "its data holds a 64-bit integer beyond JavaScript's 2^53, which cedar-wasm's JavaScript interface cannot take"
    : `cedar-wasm ${cedar.getCedarVersion()} answers otherwise than the Cedar the suite was made with`;
  return { ...base, outcome: 'as cedar-wasm', detail: `${why}: ${detail}` };
}

/** Whether cedar-wasm's own validator (strict mode, as Outpost validates) accepts the test's policies. */
function cedarWasmValidates(files: TestFiles): boolean {
  const answer = cedar.validate({ schema: files.schemaText, policies: { staticPolicies: files.policiesText }, validationSettings: { mode: 'strict' } });
  return answer.type === 'success' && answer.validationErrors.length === 0;
}

/** Runs one test file of the suite through Outpost's policy path. */
export function runCedarTest(testPath: string, read: SuiteReader): TestResult {
  const text = read(testPath);
  if (text === undefined) throw new Error(`${testPath}: not in the suite`);
  const test = JSON.parse(text) as CedarTest;
  const schemaText = read(test.schema);
  const policiesText = read(test.policies);
  const entitiesText = read(test.entities);
  if (schemaText === undefined || policiesText === undefined || entitiesText === undefined) {
    throw new Error(`${testPath}: the suite lacks ${[test.schema, test.policies, test.entities].filter((p) => read(p) === undefined).join(', ')}`);
  }
  const files: TestFiles = { schemaText, policiesText, entitiesText };
  const image = createPolicyImage('cedar-integration-test', { 'schema.cedarschema': schemaText, 'policies.cedar': policiesText, 'manifest.json': '{}' });
  let policy: CompiledPolicy;
  try {
    policy = compilePolicyImage(image);
  } catch (err) {
    if (!(err instanceof PolicyValidationError)) throw err;
    const notLoadable = test.requests.map((r): RequestResult => ({ description: r.description, outcome: 'not loadable' }));
    if (!test.shouldValidate) return { test: testPath, validation: 'agrees', loaded: false, requests: notLoadable };
    const detail = `the suite expects these policies to validate, Outpost refuses the image: ${err.message}`;
    if (!cedarWasmValidates(files)) return { test: testPath, validation: 'as cedar-wasm', validationDetail: `cedar-wasm ${cedar.getCedarVersion()} refuses them too; ${detail}`, loaded: false, requests: notLoadable };
    return { test: testPath, validation: 'disagrees', validationDetail: detail, loaded: false, requests: test.requests.map((r) => ({ description: r.description, outcome: 'disagrees', detail: 'image refused' })) };
  }
  try {
    const cedarIds = new Map(policy.policyIds.map((id, i) => [id, `policy${i}`]));
    const entities = JSON.parse(entitiesText) as EntityJson[];
    const requests = test.requests.map((request) => compareRequest(policy, cedarIds, files, entities, request));
    if (test.shouldValidate) return { test: testPath, validation: 'agrees', loaded: true, requests };
    const detail = 'the suite expects these policies not to validate, Outpost loaded the image';
    if (cedarWasmValidates(files)) return { test: testPath, validation: 'as cedar-wasm', validationDetail: `cedar-wasm ${cedar.getCedarVersion()} validates them too (strict mode); ${detail}`, loaded: true, requests };
    return { test: testPath, validation: 'disagrees', validationDetail: detail, loaded: true, requests };
  } finally {
    policy.release();
  }
}

/** The test files of the hand-written suite (`tests/<group>/<n>.json`), in order. */
export function handWrittenTests(paths: Iterable<string>): string[] {
  return [...paths].filter((p) => /^tests\/[^/]+\/[^/]+\.json$/.test(p)).sort();
}

/** The test files of the generated corpus (`corpus-tests/<hash>.json`, not `.entities.json`), in order. */
export function corpusTests(paths: Iterable<string>): string[] {
  return [...paths].filter((p) => /^corpus-tests\/[^/]+\.json$/.test(p) && !p.endsWith('.entities.json')).sort();
}

/** Totals over many tests. */
export interface Score {
  readonly tests: number;
  /** Test files whose image Outpost refused (their requests are `not loadable` or disagree). */
  readonly notLoaded: number;
  readonly validationAgrees: number;
  readonly validationAsCedarWasm: number;
  readonly requests: number;
  readonly agrees: number;
  readonly asCedarWasm: number;
  readonly disagrees: number;
  readonly notLoadable: number;
  readonly unvalidated: number;
}

export function score(results: readonly TestResult[]): Score {
  const requests = results.flatMap((r) => r.requests);
  return {
    tests: results.length,
    notLoaded: results.filter((r) => !r.loaded).length,
    validationAgrees: results.filter((r) => r.validation === 'agrees').length,
    validationAsCedarWasm: results.filter((r) => r.validation === 'as cedar-wasm').length,
    requests: requests.length,
    agrees: requests.filter((r) => r.outcome === 'agrees').length,
    asCedarWasm: requests.filter((r) => r.outcome === 'as cedar-wasm').length,
    disagrees: requests.filter((r) => r.outcome === 'disagrees').length,
    notLoadable: requests.filter((r) => r.outcome === 'not loadable').length,
    unvalidated: requests.filter((r) => r.unvalidated).length,
  };
}

/**
 * The regular files of a `.tar.gz` (ustar or GNU tar, as `tar czf` writes), by path, read in
 * memory: the corpus is ~4 MB packed, ~140 MB unpacked, and nothing is written to disk.
 */
export function readTarGz(packed: Buffer): Map<string, string> {
  const tar = gunzipSync(packed);
  const files = new Map<string, string>();
  let offset = 0;
  let longName: string | undefined;
  const field = (start: number, length: number) => {
    const raw = tar.subarray(offset + start, offset + start + length);
    const end = raw.indexOf(0);
    return raw.subarray(0, end === -1 ? raw.length : end).toString('utf8');
  };
  while (offset + 512 <= tar.length) {
    if (tar.subarray(offset, offset + 512).every((b) => b === 0)) break;
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const kind = String.fromCharCode(tar[offset + 156] || 48);
    const prefix = field(345, 155);
    let name = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    longName = undefined;
    const body = tar.subarray(offset + 512, offset + 512 + size);
    if (kind === 'L') longName = body.toString('utf8').replace(/\0+$/, '');
    else if (kind === '0' || kind === '\0') {
      name = name.replace(/^\.\//, '');
      files.set(name, body.toString('utf8'));
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}
