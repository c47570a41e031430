import type { Kysely } from 'kysely';
import { inBatches, type ScheduledJob } from '../../foundation/lib/scheduler.js';
import type { Database } from '../../infra/store/schema.js';
import { deleteEndedSessions } from '../../infra/store/repos/sessions.js';

/** Sessions deleted per statement of the prune. */
export const PRUNE_BATCH_ROWS = 1000;
/** Statements per run at most (the rest waits for the next run). */
export const PRUNE_BATCHES_PER_RUN = 50;

/**
 * Deletes the console sessions that have ended (expired or revoked) in bounded batches, yielding between them.
 * A sign-in also removes its user's ended sessions; this job removes those of users who do not sign in again.
 * Every replica runs it; a delete is idempotent. The audit log keeps the sign-ins and revocations.
 */
export function pruneSessionsJob(db: Kysely<Database>, now: () => number, everyMs: number): ScheduledJob {
  return {
    name: 'console-session-prune',
    everyMs,
    async run() {
      await inBatches(() => deleteEndedSessions(db, now(), PRUNE_BATCH_ROWS), PRUNE_BATCH_ROWS, PRUNE_BATCHES_PER_RUN);
    },
  };
}
