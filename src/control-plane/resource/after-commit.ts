import type { Logger } from '../../infra/observability/logger.js';
import type { AfterCommitTask } from '../../kernel/after-commit.js';

/**
 * Starts each task of a committed write once, without waiting for it (the answer does not depend on it);
 * a failure is logged. A write that rolled back starts none: its caller drops the list instead.
 */
export function startAfterCommit(tasks: AfterCommitTask[], logger: Pick<Logger, 'warn'>): void {
  for (const task of tasks.splice(0)) {
    void Promise.resolve()
      .then(task)
      .catch((err: unknown) =>
        logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'work after a control-plane write failed'),
      );
  }
}
