import { readSettings, sqlitePath } from './data-plane/pipeline/settings.js';
import { openStoreWhenReachable } from './infra/store/open-store-when-reachable.js';
import { StartupError } from './foundation/lib/startup-error.js';

/** One JSON line (the server's log shape) on stdout. */
function line(level: number, msg: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(JSON.stringify({ level, time: Date.now(), pid: process.pid, ...fields, msg }) + '\n');
}

/**
 * `ai-gateway migrate`: applies this build's migrations to the store the environment names (`DATABASE_URL`,
 * `DATABASE_SCHEMA`, `GATEWAY_DATA_DIR`, `GATEWAY_STORE_WAIT_MS`) under the migration lock, waiting for
 * an unreachable store as the server does. Returns the exit code: 0 when done (nothing due included), or
 * the start-up fault's (2 setting, 3 unreachable, 4 schema ahead).
 */
export async function migrate(): Promise<number> {
  try {
    let settings: ReturnType<typeof readSettings>;
    try {
      settings = readSettings();
    } catch (err) {
      throw new StartupError(`invalid setting: ${(err as Error).message}`, 2);
    }
    let applied: string[] = [];
    const store = await openStoreWhenReachable(
      settings.databaseUrl
        ? { kind: 'postgres', url: settings.databaseUrl, schema: settings.databaseSchema }
        : { kind: 'sqlite', path: sqlitePath(settings), requestLogThread: false },
      { onApplied: (names) => (applied = names), onLockWait: (waitedMs) => line(30, 'waiting for migration lock', { waitedMs }) },
      {
        waitMs: settings.storeWaitMs,
        onUnreachable: (err, attempt, retryInMs) =>
          line(40, 'store unreachable; retrying', { err: err.message || String(err), attempt, retryInMs }),
      },
    );
    await store.close();
    line(30, applied.length > 0 ? `applied ${applied.length} migrations` : 'no migrations due', { migrations: applied });
    return 0;
  } catch (err) {
    const exitCode = err instanceof StartupError ? err.exitCode : 1;
    line(60, (err as Error).message, { exitCode });
    return exitCode;
  }
}
