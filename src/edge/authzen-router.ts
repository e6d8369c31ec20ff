import express, { type Request, type Router } from 'express';
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
import { readDemand, requireReady, resolveUserId, sendStateUsed } from './decision-support';

/** The only AuthZEN subject type Outpost's directory holds. */
const USER = 'user';

/** Stops a batch early: after the first deny, or the first permit, or never (AuthZEN §7.1). */
const stopsAfter = {
  execute_all: () => false,
  deny_on_first_deny: (allowed: boolean) => !allowed,
  permit_on_first_permit: (allowed: boolean) => allowed,
} as const;

/**
 * The AuthZEN 1.0 Authorization API beside the Topaz shape: metadata, one evaluation,
 * and a batch. A batch is evaluated against ONE snapshot of the policy and directory
 * (every decision is made in one synchronous step, so a swap cannot split it) and logs
 * one line with every result. Subjects are directory users (`type: "user"`, id or e-mail).
 */
export function createAuthzenRouter(deps: { runtime: EdgeRuntime; logger: Logger; publicUrl?: string }): Router {
  const { runtime, logger } = deps;
  const router = express.Router();
  const json = express.json({ limit: '64kb' });

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

  function logDecisions(req: Request, questions: readonly Evaluation[], decisions: readonly LocalDecision[]): void {
    for (const d of decisions) runtime.metrics.decision(d.allowed);
    const first = decisions[0];
    logger.info(
      {
        req_id: req.id,
        decisions: decisions.map((d, i) => ({
          principal: questions[i]!.subject.id,
          action: questions[i]!.action.name,
          resource: { type: questions[i]!.resource.type, id: questions[i]!.resource.id },
          decision: d.allowed,
        })),
        policy_digest: first?.policyDigest ?? null,
        directory_revision: first?.directoryRevision ?? null,
      },
      decisions.length === 1 ? 'decision' : 'decisions',
    );
  }

  router.get(AUTHZEN_PATHS.configuration, (req, res) => {
    const base = deps.publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    res.json({
      policy_decision_point: base,
      access_evaluation_endpoint: `${base}${AUTHZEN_PATHS.evaluation}`,
      access_evaluations_endpoint: `${base}${AUTHZEN_PATHS.evaluations}`,
    });
  });

  router.post(AUTHZEN_PATHS.evaluation, json, async (req, res) => {
    const body = parseBody(evaluationRequestSchema, req.body, { what: 'evaluation request' });
    await runtime.freshness.ensure(readDemand(req, body));
    const [decision] = decide([body], 'execute_all');
    logDecisions(req, [body], [decision!]);
    sendStateUsed(res, decision!);
    res.json({ decision: decision!.allowed });
  });

  router.post(AUTHZEN_PATHS.evaluations, json, async (req, res) => {
    const body = parseBody(evaluationsRequestSchema, req.body, { what: 'evaluations request' });
    const questions = expandEvaluations(body);
    if (typeof questions === 'string') throw new BadRequestError(questions, 'bad_request');
    await runtime.freshness.ensure(readDemand(req, body));
    const decisions = decide(questions, body.options?.evaluations_semantic ?? 'execute_all');
    logDecisions(req, questions, decisions);
    if (decisions[0]) sendStateUsed(res, decisions[0]);
    res.json({ evaluations: decisions.map((d) => ({ decision: d.allowed })) });
  });

  return router;
}
