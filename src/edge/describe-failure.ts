import { CedarEngineError, PolicyImageError, PolicyTestsFailedError, PolicyValidationError } from '@outpost/cedar-authorizer';
import type { Logger } from '../observability';
import { ControlPlaneError } from './control-plane-client';

/**
 * Turns a failed sync into the `{code, message}` a command result carries back to exec
 * (the relay answers 502 with it). Refused images say why — that is the point of
 * reporting them; unexpected errors say nothing beyond a generic message and go to the log.
 */
export function describeFailure(err: unknown, logger: Logger): { code: string; message: string } {
  // Text over the nesting limits and text Cedar itself failed on (the engine was
  // replaced) are refusals of the image too: the last good image stays active.
  if (err instanceof PolicyImageError || err instanceof PolicyValidationError || err instanceof CedarEngineError) {
    return { code: 'invalid_image', message: `policy image refused, last good image kept: ${err.message}` };
  }
  if (err instanceof PolicyTestsFailedError) {
    return { code: 'policy_tests_failed', message: `policy image refused, last good image kept: ${err.message}` };
  }
  if (err instanceof ControlPlaneError) return { code: err.code, message: err.message };
  logger.error({ err }, 'sync failed');
  return { code: 'sync_failed', message: 'the edge failed to sync (see the edge log)' };
}
