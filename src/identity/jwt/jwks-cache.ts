import { createLocalJWKSet, errors, type JSONWebKeySet, type JWSHeaderParameters, type FlattenedJWSInput, type CryptoKey } from 'jose';
import type { HttpClient } from '../../foundation/lib/http-client.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';

/** An unknown `kid` refetches the JWKS at most once per this many milliseconds. */
export const JWKS_REFETCH_INTERVAL_MS = 30_000;
/** A fetched JWKS is kept this long before it is fetched again on use. */
export const JWKS_MAX_AGE_MS = 10 * 60_000;
const MAX_JWKS_BYTES = 512 * 1024;

/** Resolves the verification key of a JWS header (jose's key-resolver shape). */
export type KeyResolver = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;

/** The reason a key could not be found, as the 401 message names it. */
export class UnknownKidError extends Error {}

/**
 * A JWKS fetched from a URL through the gateway's HTTP client (so the connection passes the
 * custom-host guard again), cached for {@link JWKS_MAX_AGE_MS}. A token whose `kid` is not in the
 * cached set makes it refetch, at most once per {@link JWKS_REFETCH_INTERVAL_MS} (concurrent misses
 * share one fetch); otherwise the token is refused as an unknown kid without a fetch. `now` is the
 * gateway's clock.
 */
export class RemoteJwks {
  private local?: ReturnType<typeof createLocalJWKSet>;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private inflight?: Promise<void>;
  /** How many times the set was fetched (for the operator's metrics and tests). */
  fetches = 0;

  constructor(
    private readonly url: string,
    private readonly http: HttpClient,
    private readonly now: () => number,
  ) {}

  /** The key resolver jose's `jwtVerify` calls. */
  readonly resolve: KeyResolver = async (header, token) => {
    if (!this.local || this.now() - this.fetchedAt >= JWKS_MAX_AGE_MS) await this.refresh();
    try {
      return await this.local!(header, token);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
      if (this.now() - this.fetchedAt < JWKS_REFETCH_INTERVAL_MS) throw new UnknownKidError('unknown kid');
      await this.refresh();
      try {
        return await this.local!(header, token);
      } catch (again) {
        if (again instanceof errors.JWKSNoMatchingKey) throw new UnknownKidError('unknown kid');
        throw again;
      }
    }
  };

  private refresh(): Promise<void> {
    this.inflight ??= this.fetchOnce().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async fetchOnce(): Promise<void> {
    // The time is taken before the call: a failed fetch also waits for the interval before the next one.
    this.fetchedAt = this.now();
    this.fetches++;
    let text: string;
    let status: number;
    try {
      ({ status, text } = await this.http.sendText({
        url: this.url,
        method: 'GET',
        headers: { accept: 'application/json' },
        headersTimeout: 5000,
        bodyTimeout: 5000,
      }));
    } catch (err) {
      throw new GatewayError('invalid_api_key', `Invalid JWT: the JWKS could not be fetched (${(err as Error).message}).`);
    }
    if (status !== 200 || text.length > MAX_JWKS_BYTES)
      throw new GatewayError('invalid_api_key', `Invalid JWT: the JWKS URL answered ${status}.`);
    let jwks: unknown;
    try {
      jwks = JSON.parse(text);
    } catch {
      throw new GatewayError('invalid_api_key', 'Invalid JWT: the JWKS URL did not answer JSON.');
    }
    if (typeof jwks !== 'object' || jwks === null || !Array.isArray((jwks as JSONWebKeySet).keys))
      throw new GatewayError('invalid_api_key', 'Invalid JWT: the JWKS URL did not answer a key set.');
    this.local = createLocalJWKSet(jwks as JSONWebKeySet);
  }
}

/** The resolver of an inline JWKS (no fetch): an unknown `kid` is refused at once. */
export function localJwks(jwks: JSONWebKeySet): KeyResolver {
  const local = createLocalJWKSet(jwks);
  return async (header, token) => {
    try {
      return await local(header, token);
    } catch (err) {
      if (err instanceof errors.JWKSNoMatchingKey) throw new UnknownKidError('unknown kid');
      throw err;
    }
  };
}
