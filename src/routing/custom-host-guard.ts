import { LRUCache } from 'lru-cache';
import { GatewayError } from '../foundation/errors/gateway-error.js';
import { OutboundPolicy } from '../foundation/lib/outbound-policy.js';

/**
 * The early answer for custom hosts (decisions.md: `TRUSTED_CUSTOM_HOSTS`, default
 * `localhost,127.0.0.1,::1`): a URL that is not http(s), or whose host resolves to a non-public
 * address and is not trusted, is refused with a 400 before any call, and the verdict is cached for
 * a minute per URL. This is a fast pre-check only: the HTTP client's guarded connector applies the
 * same `OutboundPolicy` to the address it actually connects to, so a name that re-resolves elsewhere
 * (DNS rebinding) is still refused.
 */
export class CustomHostGuard {
  private readonly policy: OutboundPolicy;
  private readonly verdicts = new LRUCache<string, true | string>({ max: 5000, ttl: 60_000 });

  /** `policy` is the HTTP client's (`HttpClient.outbound`); a list of trusted hosts builds one with the system resolver. */
  constructor(policy: OutboundPolicy | readonly string[]) {
    this.policy = policy instanceof OutboundPolicy ? policy : new OutboundPolicy({ trusted: policy });
  }

  /** Whether the URL was vetted and allowed within the last minute: no promise, for the request path (else call `check`). */
  passes(rawUrl: string): boolean {
    return this.verdicts.get(rawUrl) === true;
  }

  /** Resolves when the URL may be called; throws 400 otherwise. */
  async check(rawUrl: string): Promise<void> {
    const cached = this.verdicts.get(rawUrl);
    if (cached === true) return;
    if (typeof cached === 'string') throw refused(cached);
    const verdict = await this.evaluate(rawUrl);
    this.verdicts.set(rawUrl, verdict);
    if (verdict !== true) throw refused(verdict);
  }

  private async evaluate(rawUrl: string): Promise<true | string> {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return `custom host '${rawUrl}' is not a valid URL`;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `custom host '${rawUrl}' must use http or https`;
    if (this.policy.trusts(url.hostname)) return true;
    try {
      await this.policy.vet(url.hostname);
      return true;
    } catch (err) {
      if (err instanceof GatewayError) return err.message;
      return `custom host '${url.hostname}' could not be resolved`;
    }
  }
}

function refused(message: string): GatewayError {
  return new GatewayError('invalid_request', message, { param: 'custom_host' });
}
