// The control plane's side of decision records (docs/reference/api.md, "Decision records"): what
// the relay receives from the edges is ingested and trimmed per tenant, stored, listed on the
// admin API and followed as a stream; plugged in by the control plane's process
// (src/control-plane-server) and read by the console's Decisions view (src/console).
export { decisionStoreExtension, openDecisionRepository } from './decision-store-extension';
export { createDecisionIngest } from './ingest-decisions';
export { decisionsPage, decisionsPageSchema } from './decision-routes';
export { streamDecisions } from './stream-decisions';
export type { DecisionRepository } from './decision-repository';
