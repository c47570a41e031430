/**
 * A start-up fault with its documented exit code (operations.md §3): 2 a malformed setting, a missing
 * encryption key with PostgreSQL or an unwritable data directory (no retry helps); 3 the store still
 * unreachable after `GATEWAY_STORE_WAIT_MS`; 4 a schema ahead of what this build can run.
 */
export class StartupError extends Error {
  constructor(
    message: string,
    readonly exitCode: 2 | 3 | 4,
  ) {
    super(message);
    this.name = 'StartupError';
  }
}
