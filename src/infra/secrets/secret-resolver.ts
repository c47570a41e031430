import { createHash } from 'node:crypto';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { Logger } from '../observability/logger.js';
import { fetchVault } from './fetch-vault.js';
import { pickMember, type FetchContext, type SecretFetcher, type SecretSource } from './secret-source.js';

/** Each manager's client. */
// The AWS and Azure SDKs (about 60 MB of heap and half a second of start-up together) load on the
// first fetch from that manager: a gateway that does not use them never pays for them.
const fetchAws: SecretFetcher = async (...args) => (await import('./fetch-aws.js')).fetchAws(...args);
const fetchAzure: SecretFetcher = async (...args) => (await import('./fetch-azure.js')).fetchAzure(...args);
const FETCHERS: Record<SecretSource['managerType'], SecretFetcher> = {
  aws_sm: fetchAws,
  azure_kv: fetchAzure,
  hashicorp_vault: fetchVault,
};

/** Wait before a failed refresh of a value still served from the cache is tried again (ms). */
const ERROR_BACKOFF_MS = 5_000;

interface Cached {
  value: string;
  version: number;
  fetchedAt: number;
}

export interface SecretResolverOptions {
  context: FetchContext;
  /** How long a value is used before it is fetched again (ms). */
  ttlMs: number;
  now(): number;
  logger: Logger;
  /** The managers' clients (tests may replace one); default the real ones. */
  fetchers?: Partial<Record<SecretSource['managerType'], SecretFetcher>>;
}

/** The fingerprint of a secret value: the first 16 hex digits of its SHA-256 (never the value). */
export function fingerprintOf(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 16);
}

/** 502 naming the reference (never the value) whose secret could not be resolved. */
export function secretUnavailable(source: Pick<SecretSource, 'id' | 'name'>, reason: string): GatewayError {
  return new GatewayError('provider_unreachable', `Secret reference '${source.name}' (${source.id}) could not be resolved: ${reason}`, {
    param: 'secret_reference_id',
  });
}

/**
 * Resolves secret references against their managers, for every caller (integration secret mappings
 * today; MCP servers and agent-server headers can call {@link resolve} too):
 *
 * - values are cached per reference for `ttlMs`; a reference edited since (another `version`) is fetched anew;
 * - one fetch in flight per reference: concurrent callers share it;
 * - stale-if-error: when a refresh fails, the cached value of the same version keeps being served (a
 *   warning is logged; the next try waits {@link ERROR_BACKOFF_MS}); with no cached value the caller
 *   gets 502 `provider_unreachable` naming the reference;
 * - {@link peek} reads the cache without waiting (the request path), starting a background refresh when
 *   the value is missing or stale.
 */
export class SecretResolver {
  private readonly cache = new Map<string, Cached>();
  private readonly errors = new Map<string, string>();
  private readonly inflight = new Map<string, Promise<string>>();
  private readonly fetchers: Record<SecretSource['managerType'], SecretFetcher>;

  constructor(private readonly opts: SecretResolverOptions) {
    this.fetchers = { ...FETCHERS, ...opts.fetchers };
  }

  /**
   * The secret's value (the member `source.key` of a JSON secret when set): from the cache while
   * fresh, else fetched (`fresh: true` always fetches, e.g. after the provider refused the value).
   * Throws 502 naming the reference when it cannot be fetched and nothing is cached.
   */
  async resolve(source: SecretSource, opts: { fresh?: boolean } = {}): Promise<string> {
    const c = this.cache.get(source.id);
    if (!opts.fresh && c && c.version === source.version && this.opts.now() - c.fetchedAt < this.opts.ttlMs) return c.value;
    return this.fetchOnce(source);
  }

  /**
   * The cached value of the reference's current version, without waiting; undefined when there is
   * none. A missing or stale value starts one background fetch.
   */
  peek(source: SecretSource): string | undefined {
    const c = this.cache.get(source.id);
    const usable = c && c.version === source.version ? c : undefined;
    if (!usable || this.opts.now() - usable.fetchedAt >= this.opts.ttlMs) void this.fetchOnce(source).catch(() => undefined);
    return usable?.value;
  }

  /** Fetches every given reference not cached yet (at start and after a reload), in the background. */
  prefetch(sources: Iterable<SecretSource>): void {
    for (const s of sources) this.peek(s);
  }

  /**
   * Fetches the secret now, without the cache's stale-if-error fallback (`POST /{id}/test`): the
   * manager's answer as it is. A success refreshes the cache.
   */
  async probe(source: SecretSource): Promise<string> {
    try {
      const value = pickMember(await this.fetchers[source.managerType](source, this.opts.context), source.key);
      this.cache.set(source.id, { value, version: source.version, fetchedAt: this.opts.now() });
      this.errors.delete(source.id);
      return value;
    } catch (err) {
      const reason = err instanceof GatewayError ? err.message : ((err as Error)?.message ?? String(err)).slice(0, 300);
      this.errors.set(source.id, reason);
      throw secretUnavailable(source, reason);
    }
  }

  /** Why the last fetch of a reference failed (cleared by a success); undefined when it did not. */
  lastError(id: string): string | undefined {
    return this.errors.get(id);
  }

  /** Forgets the cached values of references that no longer exist. */
  retain(ids: ReadonlySet<string>): void {
    for (const id of this.cache.keys()) if (!ids.has(id)) this.cache.delete(id);
  }

  private fetchOnce(source: SecretSource): Promise<string> {
    const key = `${source.id}:${source.version}`;
    const running = this.inflight.get(key);
    if (running) return running;
    const p = this.fetch(source).finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  private async fetch(source: SecretSource): Promise<string> {
    try {
      const raw = await this.fetchers[source.managerType](source, this.opts.context);
      const value = pickMember(raw, source.key);
      this.cache.set(source.id, { value, version: source.version, fetchedAt: this.opts.now() });
      this.errors.delete(source.id);
      return value;
    } catch (err) {
      const reason = err instanceof GatewayError ? err.message : ((err as Error)?.message ?? String(err)).slice(0, 300);
      this.errors.set(source.id, reason);
      const c = this.cache.get(source.id);
      if (c && c.version === source.version) {
        c.fetchedAt = this.opts.now() - this.opts.ttlMs + ERROR_BACKOFF_MS;
        this.opts.logger.warn({ secretReferenceId: source.id, err: reason }, 'secret manager unreachable; serving the cached value');
        return c.value;
      }
      this.opts.logger.warn({ secretReferenceId: source.id, err: reason }, 'secret reference could not be resolved');
      throw secretUnavailable(source, reason);
    }
  }
}
