/** How long to wait between two tries for the migration lock, and between two "waiting" log lines. */
const RETRY_MS = 500;
const LOG_EVERY_MS = 5_000;

/** Options of {@link withMigrationLock}. */
export interface MigrationLockOptions {
  url: string;
  schema?: string;
  /** Called at most every 5 s while another replica holds the lock. */
  onWait?: (waitedMs: number) => void;
}

/**
 * Runs `fn` while holding the PostgreSQL session-level advisory lock of this schema's migrations, on a
 * connection of its own: one replica migrates and bootstraps at a time, the others wait. The lock belongs
 * to the session, so a holder that dies frees it when its connection ends; the connection's TCP
 * keepalives (10 s idle, 5 s apart, 3 probes) make the server notice a vanished host within ~25 s.
 */
export async function withMigrationLock<T>(opts: MigrationLockOptions, fn: () => Promise<T>): Promise<T> {
  const pg = await import('pg');
  const client = new pg.default.Client({
    connectionString: opts.url,
    application_name: `ai-gateway/migrations/${opts.schema ?? 'public'}`,
    keepAlive: true,
    connectionTimeoutMillis: 5_000,
    options: '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3',
  });
  client.on('error', () => {});
  await client.connect();
  const key = `ai-gateway migrations ${opts.schema ?? 'public'}`;
  try {
    const started = Date.now();
    let logged = 0;
    for (;;) {
      const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtext($1)) as locked', [key]);
      if (rows[0]?.locked) break;
      const waited = Date.now() - started;
      if (waited - logged >= LOG_EVERY_MS || logged === 0) {
        logged = Math.max(waited, 1);
        opts.onWait?.(waited);
      }
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
    return await fn();
  } finally {
    // Ending the session releases the lock.
    await client.end().catch(() => undefined);
  }
}
