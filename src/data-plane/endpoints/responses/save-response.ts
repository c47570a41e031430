import type { GatewayDeps } from '../../pipeline/deps.js';
import { saveResponse, type StoredResponse } from '../../../infra/store/repos/responses.js';

/**
 * Stores a response without failing the request: a store error is logged and counted as a degraded
 * component (the client still gets its answer; a later GET answers 404).
 */
export async function saveResponseSafely(deps: GatewayDeps, r: StoredResponse): Promise<void> {
  try {
    await saveResponse(deps.store, r);
  } catch (err) {
    deps.metrics.warnings.inc({ component: 'responses-store' });
    deps.logger.warn({ err: (err as Error)?.message, responseId: r.id }, 'could not store a response');
  }
}
