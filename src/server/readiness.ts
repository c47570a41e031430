import { sql } from 'kysely';
import type { Store } from '../infra/store/store.js';
import { migrationStatus } from '../infra/store/schema-compat.js';
import type { Lifecycle } from '../data-plane/pipeline/deps.js';

/** How long a store probe's answer is reused, and how long the probe may take before it counts as a failure. */
const STORE_CACHE_MS = 2_000;
const STORE_TIMEOUT_MS = 2_000;

/** One readiness answer (operations.md §1). */
export interface ReadinessReport {
  ready: boolean;
  checks: { store: 'ok' | 'fail'; migrations: 'ok' | 'fail'; snapshot: 'ok' | 'fail'; draining: 'ok' | 'fail' };
  /** The failing checks by name: `store_unreachable`, `migrations_pending`, `snapshot_not_loaded`, `draining`. */
  reasons: string[];
}

interface StoreProbe {
  at: number;
  reachable: boolean;
  pending: boolean;
}

/**
 * Readiness of this replica: the store answers a trivial query within 2 s (cached 2 s, one probe in
 * flight at a time), this build's migrations are all applied, the runtime snapshot is loaded, and no
 * SIGTERM was received. A schema ahead of this build (a later release's expand steps) is ready.
 */
export class Readiness {
  private last?: StoreProbe;
  private inFlight?: Promise<StoreProbe>;

  constructor(
    private readonly store: Store,
    private readonly snapshotLoaded: () => boolean,
    private readonly lifecycle: Lifecycle,
    private readonly now: () => number = Date.now,
  ) {}

  /** Checks now (the store part from a probe at most 2 s old). */
  async check(): Promise<ReadinessReport> {
    const probe = await this.probe();
    const checks: ReadinessReport['checks'] = {
      store: probe.reachable ? 'ok' : 'fail',
      migrations: probe.reachable && probe.pending ? 'fail' : 'ok',
      snapshot: this.snapshotLoaded() ? 'ok' : 'fail',
      draining: this.lifecycle.draining || this.lifecycle.closing ? 'fail' : 'ok',
    };
    const reasons: string[] = [];
    if (checks.store === 'fail') reasons.push('store_unreachable');
    if (checks.migrations === 'fail') reasons.push('migrations_pending');
    if (checks.snapshot === 'fail') reasons.push('snapshot_not_loaded');
    if (checks.draining === 'fail') reasons.push('draining');
    return { ready: reasons.length === 0, checks, reasons };
  }

  private probe(): Promise<StoreProbe> {
    if (this.last && this.now() - this.last.at < STORE_CACHE_MS) return Promise.resolve(this.last);
    this.inFlight ??= this.runProbe().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async runProbe(): Promise<StoreProbe> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('store probe timed out')), STORE_TIMEOUT_MS);
    });
    let result: StoreProbe;
    try {
      const status = await Promise.race([sql`select 1`.execute(this.store.db).then(() => migrationStatus(this.store.db)), timeout]);
      result = { at: this.now(), reachable: true, pending: status.pending.length > 0 };
    } catch {
      result = { at: this.now(), reachable: false, pending: false };
    } finally {
      clearTimeout(timer);
    }
    this.last = result;
    return result;
  }
}
