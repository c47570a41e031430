/**
 * Shared circuit-breaker state of targets, keyed by a target identity. Implementations: in process
 * (`memory-circuit-store.ts`) and Redis (`redis-circuit-store.ts`), one conformance suite for both.
 */
export interface CircuitState {
  /** Consecutive counted failures. */
  failures: number;
  /** When the circuit opened (ms), or null while closed. */
  openedAt: number | null;
}

export interface CircuitStore {
  /** Current state of a target (closed with 0 failures when unknown). */
  get(key: string): Promise<CircuitState>;
  /**
   * Records a counted failure; opens the circuit (openedAt = now) when failures reach `threshold`
   * or when the circuit was half-open. Returns the new state.
   */
  recordFailure(key: string, threshold: number, now: number, ttlMs: number): Promise<CircuitState>;
  /** Records a success: closes the circuit and clears failures. */
  recordSuccess(key: string): Promise<void>;
  /**
   * Claims the single half-open trial of an open circuit whose cooldown has passed. True for exactly
   * one caller per cooldown window across all replicas.
   */
  claimTrial(key: string, now: number, cooldownMs: number): Promise<boolean>;
  close(): Promise<void>;
}
