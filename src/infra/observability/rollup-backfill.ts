import type { Store } from '../store/store.js';
import { BACKFILL_BATCH_ROWS, backfillRollups } from '../store/repos/request-log-rollups.js';
import { inBatches, type ScheduledJob } from '../../foundation/lib/scheduler.js';

/** Batches per run at most (the rest waits for the next run): 500,000 rows. */
export const BACKFILL_BATCHES_PER_RUN = 250;

/**
 * The analytics rollup backfill: adds the request-log rows that have no rollups yet (written before
 * migration 0031, or by an older replica during an upgrade) in bounded batches
 * (`BACKFILL_BATCH_ROWS` rows per transaction, at most `BACKFILL_BATCHES_PER_RUN` per run), yielding
 * between batches. Every replica runs it; the cursor it moves in each batch's transaction makes every
 * row count once. Run at start and every `everyMs`; once done a run is one indexed read.
 */
export function rollupBackfillJob(store: Store, everyMs: number, batchRows = BACKFILL_BATCH_ROWS): ScheduledJob {
  return {
    name: 'request-log-rollup-backfill',
    everyMs,
    async run() {
      await inBatches(() => backfillRollups(store, batchRows), batchRows, BACKFILL_BATCHES_PER_RUN);
    },
  };
}
