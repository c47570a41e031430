import { GatewayError } from '../foundation/errors/gateway-error.js';
import type { CircuitStore } from '../infra/state/circuit-store.js';
import type { CircuitSettings } from './compiled-config.js';

/**
 * The circuit breaker of targets (decisions.md): a target's circuit opens after `failure_threshold`
 * consecutive counted failures; an open target is skipped; after `cooldown_interval` one trial request
 * passes (half-open); its success closes the circuit, its failure opens it again.
 */
export class CircuitBreaker {
  constructor(
    private readonly store: CircuitStore,
    private readonly now: () => number,
    private readonly onDegraded: (err: unknown) => void = () => {},
  ) {}

  /** Throws a skippable `circuit_open` error when the target may not be called now. */
  async admit(identity: string, cb: CircuitSettings, provider: string): Promise<void> {
    let allowed = true;
    try {
      const state = await this.store.get(identity);
      if (state.openedAt !== null) allowed = await this.store.claimTrial(identity, this.now(), cb.cooldownMs);
    } catch (err) {
      this.onDegraded(err);
      return;
    }
    if (!allowed) throw circuitOpen(provider);
  }

  /**
   * A target's state without claiming a trial (for explanations): `open` during the cooldown,
   * `half_open` once it passed (the next request is the trial), else `closed`.
   */
  async peek(identity: string, cb: CircuitSettings): Promise<{ state: 'closed' | 'open' | 'half_open'; failures: number }> {
    const s = await this.store.get(identity);
    if (s.openedAt === null) return { state: 'closed', failures: s.failures };
    return { state: this.now() - s.openedAt >= cb.cooldownMs ? 'half_open' : 'open', failures: s.failures };
  }

  /** Whether a failure with this status counts (default: status ≥ 500, network errors and timeouts). */
  counts(err: GatewayError, cb: CircuitSettings): boolean {
    if (cb.failureStatusCodes) return cb.failureStatusCodes.has(err.status);
    return err.status >= 500 || err.code === 'request_timeout' || err.code === 'provider_unreachable';
  }

  async failure(identity: string, cb: CircuitSettings): Promise<void> {
    try {
      await this.store.recordFailure(identity, cb.failureThreshold, this.now(), cb.cooldownMs * 10);
    } catch (err) {
      this.onDegraded(err);
    }
  }

  async success(identity: string): Promise<void> {
    try {
      await this.store.recordSuccess(identity);
    } catch (err) {
      this.onDegraded(err);
    }
  }
}

/** The error of a skipped target; `extra.skipped` marks it for the strategy walk. */
export function circuitOpen(provider?: string): GatewayError {
  return new GatewayError('circuit_open', undefined, { provider, retryable: false, publicCode: 'circuit_open' });
}

/** True for the error `admit` throws. */
export function isCircuitOpen(err: GatewayError): boolean {
  return err.code === 'circuit_open';
}
