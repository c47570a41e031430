import { openStore, type OpenStoreHooks, type Store, type StoreOptions } from './store.js';
import { isStoreUnavailable } from './store-errors.js';
import { StartupError } from '../../foundation/lib/startup-error.js';

/** Options of {@link openStoreWhenReachable}. */
export interface StoreWaitOptions {
  /** How long to keep trying while the store is unreachable, ms (`GATEWAY_STORE_WAIT_MS`). */
  waitMs: number;
  /** Called once per failed attempt with the cause and the delay before the next one. */
  onUnreachable: (err: Error, attempt: number, retryInMs: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Opens the store (migrations and `hooks` included), retrying with backoff (1 s doubling to 5 s) while
 * the database is unreachable; still unreachable after `waitMs` → a `StartupError` with exit code 3
 * (operations.md §3). Any other failure is thrown as it is.
 */
export async function openStoreWhenReachable(opts: StoreOptions, hooks: OpenStoreHooks, wait: StoreWaitOptions): Promise<Store> {
  const sleep = wait.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = Date.now() + wait.waitMs;
  let delay = 1_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await openStore(opts, hooks);
    } catch (err) {
      if (!isStoreUnavailable(err)) throw err;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new StartupError(`store unreachable for ${wait.waitMs} ms (GATEWAY_STORE_WAIT_MS): ${(err as Error).message}`, 3);
      const next = Math.min(delay, left);
      wait.onUnreachable(err as Error, attempt, next);
      await sleep(next);
      delay = Math.min(delay * 2, 5_000);
    }
  }
}
