import express, { type Router } from 'express';
import { AUTHZEN_PATHS, AUTHZEN_SEARCH_PATHS, evaluationRequestSchema, evaluationsRequestSchema, expandEvaluations } from '../decision-protocol';
import { BadRequestError, parseBody } from '../http';
import { unredactedLogger, type Logger } from '../observability';
import { type EdgeRuntime, readDemand, stateUsedHeaders, type DecisionInput, type DecisionRoute, authzenReasonContext, reasonsOf, wantsReasons } from '../edge';
import { decideEvaluation, decideEvaluations, type DecidedFrom, type ItemOutcome } from './decide-evaluations';

/** Body limit of both AuthZEN endpoints (a batch of 64 evaluations fits easily). */
const AUTHZEN_LIMIT_BYTES = 64 * 1024;
/** A body that is not JSON: 400, as the AuthZEN certification scenario requires (its §2.4.3). */
const WRONG_MEDIA_TYPE = 400;

/** One decision-log entry per evaluation, with the determining policies' ids (the error, for an item that could not be asked). */
function logEntry(o: ItemOutcome) {
  if ('problem' in o.item) return { decision: false, error: o.error?.message };
  const q = o.item;
  return {
    principal: q.subject.id,
    action: q.action.name,
    resource: { type: q.resource.type, id: q.resource.id },
    decision: o.allowed,
    ...(o.decision ? { reasons: o.decision.reasons } : {}),
    ...(o.error ? { error: o.error.message } : {}),
  };
}

/**
 * The AuthZEN 1.0 Authorization API beside the Topaz shape: one evaluation and a batch
 * (the metadata document is {@link createAuthzenMetadataRouter}). A batch is decided
 * against ONE snapshot of the policy and directory ({@link decideEvaluations}) and logs
 * one line with every result. A batch without `evaluations`, or with an empty array, is
 * one evaluation and answers like one (`{"decision": …}`); an item that is not a whole
 * question is a `false` with its error in `context`. Subjects are directory users
 * (`type: "user"`: an id, e-mail or identity); their `properties`, the action's and the
 * request's `context` reach the policy as Cedar `context`. With `Outpost-Explain: reasons`
 * each decision carries its reasons in its `context`; every decision becomes a decision record.
 */
export function createAuthzenRoutes(deps: { runtime: EdgeRuntime; logger: Logger }): DecisionRoute[] {
  const { runtime } = deps;
  // Every field of a decision line is the edge's own choice, never a credential: no redaction (docs/reference/security.md).
  const logger = unredactedLogger(deps.logger);

  function log(input: DecisionInput, outcomes: readonly ItemOutcome[], from: DecidedFrom): void {
    for (const o of outcomes) {
      if (!o.decision) continue;
      runtime.answered(o.allowed);
      if (o.request) runtime.recordDecision(o.request, o.decision, input.id, o.latencyMs ?? 0);
    }
    const fields = { req_id: input.id, policy_digest: from.policyDigest, directory_revision: from.directoryRevision };
    if (outcomes.length === 1) logger.info({ ...fields, decisions: [logEntry(outcomes[0]!)] }, 'decision');
    else logger.info({ ...fields, decisions: outcomes.map(logEntry) }, 'decisions');
  }

  /** A single question's answer (from `/evaluation`, or a batch that is one). */
  function single(input: DecisionInput, q: Parameters<typeof decideEvaluation>[1], explain: boolean) {
    const { request, decision, latencyMs } = decideEvaluation(runtime, q);
    const from = { policyDigest: decision.policyDigest, directoryRevision: decision.directoryRevision };
    log(input, [{ item: q, allowed: decision.allowed, decision, request, latencyMs }], from);
    const body = explain ? { decision: decision.allowed, context: authzenReasonContext(decision.allowed, reasonsOf(decision, runtime.state.policy)) } : { decision: decision.allowed };
    return { headers: stateUsedHeaders(from), body };
  }

  return [
    {
      path: AUTHZEN_PATHS.evaluation,
      limitBytes: AUTHZEN_LIMIT_BYTES,
      wrongMediaTypeStatus: WRONG_MEDIA_TYPE,
      async handle(input) {
        const body = parseBody(evaluationRequestSchema, input.body, { what: 'evaluation request' });
        const explain = wantsReasons(input);
        await runtime.freshness.ensure(readDemand(input, body));
        return single(input, body, explain);
      },
    },
    {
      path: AUTHZEN_PATHS.evaluations,
      limitBytes: AUTHZEN_LIMIT_BYTES,
      wrongMediaTypeStatus: WRONG_MEDIA_TYPE,
      async handle(input) {
        const body = parseBody(evaluationsRequestSchema, input.body, { what: 'evaluations request' });
        const { single: one, items } = expandEvaluations(body);
        const only = items[0]!;
        if (one && 'problem' in only) throw new BadRequestError(only.problem);
        const explain = wantsReasons(input);
        await runtime.freshness.ensure(readDemand(input, body));
        if (one && !('problem' in only)) return single(input, only, explain);
        const { outcomes, from } = decideEvaluations(runtime, items, body.options?.evaluations_semantic ?? 'execute_all');
        log(input, outcomes, from);
        const policy = runtime.state.policy;
        const evaluations = outcomes.map((o) => {
          if (o.error) return { decision: false, context: { error: o.error } };
          if (explain && o.decision) return { decision: o.allowed, context: authzenReasonContext(o.allowed, reasonsOf(o.decision, policy)) };
          return { decision: o.allowed };
        });
        return { headers: stateUsedHeaders(from), body: { evaluations } };
      },
    },
  ];
}

/** `GET /.well-known/authzen-configuration` (AuthZEN §9): every endpoint, search included, under `publicUrl` or else the request's own origin. */
export function createAuthzenMetadataRouter(publicUrl: string | undefined): Router {
  const router = express.Router();
  router.get(AUTHZEN_PATHS.configuration, (req, res) => {
    const base = publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    res.json({
      policy_decision_point: base,
      access_evaluation_endpoint: `${base}${AUTHZEN_PATHS.evaluation}`,
      access_evaluations_endpoint: `${base}${AUTHZEN_PATHS.evaluations}`,
      search_subject_endpoint: `${base}${AUTHZEN_SEARCH_PATHS.subject}`,
      search_resource_endpoint: `${base}${AUTHZEN_SEARCH_PATHS.resource}`,
      search_action_endpoint: `${base}${AUTHZEN_SEARCH_PATHS.action}`,
    });
  });
  return router;
}
