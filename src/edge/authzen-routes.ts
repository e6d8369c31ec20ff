import express, { type Router } from 'express';
import {
  AUTHZEN_PATHS,
  evaluationRequestSchema,
  evaluationsRequestSchema,
  expandEvaluations,
  type Evaluation,
} from '../decision-protocol';
import type { LocalDecision } from '../decision';
import { BadRequestError, parseBody } from '../http';
import type { Logger } from '../observability';
import type { EdgeRuntime } from './create-edge-runtime';
import { readDemand, requireReady, resolveUserId, stateUsedHeaders, type DecisionInput, type DecisionRoute } from './decision-support';

/** One decision-log entry per evaluation. */
function logEntries(questions: readonly Evaluation[], decisions: readonly LocalDecision[]) {
  const entries = [];
  for (let i = 0; i < decisions.length; i += 1) {
    const q = questions[i]!;
    entries.push({ principal: q.subject.id, action: q.action.name, resource: { type: q.resource.type, id: q.resource.id }, decision: decisions[i]!.allowed });
  }
  return entries;
}

/** The only AuthZEN subject type Outpost's directory holds. */
const USER = 'user';

/** Body limit of both AuthZEN endpoints (a batch of 64 evaluations fits easily). */
const AUTHZEN_LIMIT_BYTES = 64 * 1024;

/** Stops a batch early: after the first deny, or the first permit, or never (AuthZEN §7.1). */
const stopsAfter = {
  execute_all: () => false,
  deny_on_first_deny: (allowed: boolean) => !allowed,
  permit_on_first_permit: (allowed: boolean) => allowed,
} as const;

/**
 * The AuthZEN 1.0 Authorization API beside the Topaz shape: one evaluation and a batch
 * (the metadata document is {@link createAuthzenMetadataRouter}). A batch is decided
 * against ONE snapshot of the policy and directory — every decision is made in one
 * synchronous step, so a swap cannot split it — and logs one line with every result.
 * Subjects are directory users (`type: "user"`, id or e-mail).
 */
export function createAuthzenRoutes(deps: { runtime: EdgeRuntime; logger: Logger }): DecisionRoute[] {
  const { runtime, logger } = deps;

  function decide(questions: readonly Evaluation[], semantic: keyof typeof stopsAfter): LocalDecision[] {
    const { policy, directory } = requireReady(runtime.state);
    for (const q of questions) {
      if (q.subject.type !== USER) throw new BadRequestError(`unknown subject type "${q.subject.type.slice(0, 64)}"; this edge knows "${USER}"`, 'unknown_subject_type');
    }
    const decisions: LocalDecision[] = [];
    for (const q of questions) {
      const decision = runtime.authorizer.decideNow({
        principal: resolveUserId(directory, q.subject.id),
        action: q.action.name,
        resource: { type: q.resource.type, id: q.resource.id, attributes: q.resource.properties ?? {} },
        policyPath: `${policy.image.name}.${q.action.name}`,
      });
      decisions.push(decision);
      if (stopsAfter[semantic](decision.allowed)) break;
    }
    return decisions;
  }

  function logDecisions(input: DecisionInput, questions: readonly Evaluation[], decisions: readonly LocalDecision[]): void {
    for (const d of decisions) runtime.metrics.decision(d.allowed);
    const first = decisions[0];
    logger.info(
      {
        req_id: input.id,
        decisions: logEntries(questions, decisions),
        policy_digest: first?.policyDigest ?? null,
        directory_revision: first?.directoryRevision ?? null,
      },
      decisions.length === 1 ? 'decision' : 'decisions',
    );
  }

  return [
    {
      path: AUTHZEN_PATHS.evaluation,
      limitBytes: AUTHZEN_LIMIT_BYTES,
      async handle(input) {
        const body = parseBody(evaluationRequestSchema, input.body, { what: 'evaluation request' });
        await runtime.freshness.ensure(readDemand(input, body));
        const decision = decide([body], 'execute_all')[0]!;
        logDecisions(input, [body], [decision]);
        return { headers: stateUsedHeaders(decision), body: { decision: decision.allowed } };
      },
    },
    {
      path: AUTHZEN_PATHS.evaluations,
      limitBytes: AUTHZEN_LIMIT_BYTES,
      async handle(input) {
        const body = parseBody(evaluationsRequestSchema, input.body, { what: 'evaluations request' });
        const questions = expandEvaluations(body);
        if (typeof questions === 'string') throw new BadRequestError(questions);
        await runtime.freshness.ensure(readDemand(input, body));
        const decisions = decide(questions, body.options?.evaluations_semantic ?? 'execute_all');
        logDecisions(input, questions, decisions);
        const evaluations: { decision: boolean }[] = [];
        for (const d of decisions) evaluations.push({ decision: d.allowed });
        return { headers: decisions[0] ? stateUsedHeaders(decisions[0]) : {}, body: { evaluations } };
      },
    },
  ];
}

/** `GET /.well-known/authzen-configuration` (AuthZEN §9), naming `publicUrl` or else the request's own origin. */
export function createAuthzenMetadataRouter(publicUrl: string | undefined): Router {
  const router = express.Router();
  router.get(AUTHZEN_PATHS.configuration, (req, res) => {
    const base = publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    res.json({
      policy_decision_point: base,
      access_evaluation_endpoint: `${base}${AUTHZEN_PATHS.evaluation}`,
      access_evaluations_endpoint: `${base}${AUTHZEN_PATHS.evaluations}`,
    });
  });
  return router;
}
