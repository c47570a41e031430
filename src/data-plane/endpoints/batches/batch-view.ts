import type { BatchObject } from '../../../foundation/spec/batches.js';
import type { Store } from '../../../infra/store/store.js';
import { countLines, type BatchRow } from '../../../infra/store/repos/batches.js';

/** Unix seconds of a millisecond time. */
export function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** States after which a batch never changes again. */
export const TERMINAL = new Set(['completed', 'failed', 'expired', 'cancelled']);

/**
 * The batch object a client sees: the stored object, with live `request_counts` while lines run
 * (terminal batches keep the counts written when they ended).
 */
export async function viewBatch(store: Store, row: BatchRow): Promise<BatchObject> {
  if (TERMINAL.has(row.status) || row.status === 'validating') return row.batch;
  const c = await countLines(store, row.id);
  return { ...row.batch, request_counts: { total: c.total, completed: c.ok, failed: c.failed } };
}
