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
 * A gateway-managed batch as the published schema has it: members not set yet (`errors`,
 * `output_file_id`, the `*_at` times, …) are left out rather than null; `metadata` stays (nullable there).
 */
export function publicBatch(batch: BatchObject): BatchObject {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(batch)) if (v !== null || k === 'metadata') out[k] = v;
  return out as unknown as BatchObject;
}

/**
 * The batch object a client sees: the stored object, with live `request_counts` while lines run
 * (terminal batches keep the counts written when they ended); a gateway-managed one through {@link publicBatch},
 * a provider's as the provider wrote it.
 */
export async function viewBatch(store: Store, row: BatchRow): Promise<BatchObject> {
  const view = row.mode === 'gateway' ? publicBatch : (b: BatchObject) => b;
  if (TERMINAL.has(row.status) || row.status === 'validating') return view(row.batch);
  const c = await countLines(store, row.id);
  return view({ ...row.batch, request_counts: { total: c.total, completed: c.ok, failed: c.failed } });
}
