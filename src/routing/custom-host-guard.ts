import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import { GatewayError } from '../errors/gateway-error.js';

/**
 * Refuses custom hosts that resolve to private, loopback or link-local addresses unless their host
 * name is trusted (decisions.md: `TRUSTED_CUSTOM_HOSTS`, default `localhost,127.0.0.1,::1`).
 * DNS answers are cached for a minute so the hot path rarely waits on a lookup.
 */
export class CustomHostGuard {
  private readonly trusted: Set<string>;
  private readonly verdicts = new LRUCache<string, true | string>({ max: 5000, ttl: 60_000 });

  constructor(trusted: string[]) {
    this.trusted = new Set(trusted.map((h) => h.trim().toLowerCase().replace(/^\[|\]$/g, '')).filter(Boolean));
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
    const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
    if (this.trusted.has(host)) return true;
    let addresses: string[];
    if (isIP(host)) addresses = [host];
    else {
      try {
        addresses = (await lookup(host, { all: true })).map((a) => a.address);
      } catch {
        return `custom host '${host}' could not be resolved`;
      }
    }
    const bad = addresses.find(isPrivateAddress);
    return bad ? `custom host '${host}' resolves to a private address (${bad}); add it to TRUSTED_CUSTOM_HOSTS to allow it` : true;
  }
}

function refused(message: string): GatewayError {
  return new GatewayError('invalid_request', message, { param: 'custom_host' });
}

/** True for loopback, private, link-local, unique-local, CGNAT and unspecified addresses. */
export function isPrivateAddress(address: string): boolean {
  const a = address.toLowerCase();
  if (isIP(a) === 6) {
    if (a === '::1' || a === '::') return true;
    const mapped = a.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
    if (mapped) return isPrivateAddress(mapped[1]!);
    return /^(fe[89ab][0-9a-f]|fc|fd)/.test(a);
  }
  const p = a.split('.').map(Number);
  if (p.length !== 4 || p.some((n) => Number.isNaN(n))) return false;
  const [x, y] = p as [number, number];
  return x === 10 || x === 127 || x === 0 || (x === 169 && y === 254) || (x === 172 && y >= 16 && y <= 31) || (x === 192 && y === 168) || (x === 100 && y >= 64 && y <= 127);
}
