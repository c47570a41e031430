import type { Store } from '../store/store.js';
import { deleteRequestLogsBefore } from '../store/repos/request-logs.js';
import { BUCKETS_MS, RETENTION_BUCKETS_PER_STATEMENT, deleteRollupBucketsBefore } from '../store/repos/request-log-rollups.js';
import { inBatches, type ScheduledJob } from '../../foundation/lib/scheduler.js';

/** Rows per delete statement of the retention job. */
export const RETENTION_BATCH_ROWS = 5000;
/** Statements per run at most (the rest waits for the next run): 500,000 rows. */
export const RETENTION_BATCHES_PER_RUN = 100;

/**
 * The request-log retention job (`GATEWAY_LOG_RETENTION_DAYS`): deletes the rows older than the
 * retention in bounded batches (`RETENTION_BATCH_ROWS` per statement, at most
 * `RETENTION_BATCHES_PER_RUN` per run), then the analytics rollup buckets that ended before it
 * (`RETENTION_BUCKETS_PER_STATEMENT` whole buckets per statement, per organisation and width, within the
 * same budget of statements), yielding between batches. Every replica runs it; a delete is
 * idempotent, so two replicas deleting at once delete each row once.
 */
export function logRetentionJob(store: Store, retentionDays: number, now: () => number, everyMs: number): ScheduledJob {
  return {
    name: 'request-log-retention',
    everyMs,
    async run() {
      const before = now() - retentionDays * 86_400_000;
      let budget = await inBatches(
        () => deleteRequestLogsBefore(store, before, RETENTION_BATCH_ROWS),
        RETENTION_BATCH_ROWS,
        RETENTION_BATCHES_PER_RUN,
      );
      const organisations = await store.db.selectFrom('organisations').select('id').execute();
      for (const { id } of organisations) {
        for (const width of BUCKETS_MS)
          budget = await inBatches(() => deleteRollupBucketsBefore(store, id, width, before), RETENTION_BUCKETS_PER_STATEMENT, budget);
      }
    },
  };
}
