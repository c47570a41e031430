import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import { GatewayError } from '../errors/gateway-error.js';
import { nonPublicRange } from './address-class.js';

/** Resolves a host name to all its addresses (the shape of `dns.promises.lookup(host, { all: true })`). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** `TRUSTED_CUSTOM_HOSTS` when the variable is unset. */
export const DEFAULT_TRUSTED_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '::1'];

export interface OutboundPolicyOptions {
  /** Host names (or literal addresses) allowed to resolve to non-public addresses; default {@link DEFAULT_TRUSTED_HOSTS}. */
  trusted?: readonly string[];
  /** DNS resolution; default the system resolver (`dns.lookup`, all addresses, in the resolver's order). */
  resolve?: Resolver;
}

const systemResolve: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Which outbound destinations the gateway may connect to: a host whose addresses are not all public
 * (see `nonPublicRange`) is refused unless its name is trusted (`TRUSTED_CUSTOM_HOSTS`). One policy is
 * shared by the connect-time check of the HTTP client (`connector`), which decides, and the custom-host
 * pre-check that gives an early, cached answer.
 */
export class OutboundPolicy {
  private readonly trusted: ReadonlySet<string>;
  private readonly resolve: Resolver;

  constructor(opts: OutboundPolicyOptions = {}) {
    this.trusted = new Set((opts.trusted ?? DEFAULT_TRUSTED_HOSTS).map(normalizeHost).filter(Boolean));
    this.resolve = opts.resolve ?? systemResolve;
  }

  /** True when the host name (or literal address, bracketed or not) is listed in `TRUSTED_CUSTOM_HOSTS`. */
  trusts(host: string): boolean {
    return this.trusted.has(normalizeHost(host));
  }

  /**
   * Resolves a host and returns its addresses when it may be called: a trusted host as resolved, any
   * other only when every address is public. A literal address is not resolved. Throws the refusal
   * (400 `invalid_request`, param `custom_host`); DNS failures are rethrown as the resolver raised them.
   */
  async vet(host: string): Promise<LookupAddress[]> {
    const bare = normalizeHost(host);
    const family = isIP(bare);
    const addresses = family ? [{ address: bare, family }] : await this.resolve(bare);
    if (this.trusted.has(bare)) return addresses;
    for (const a of addresses) {
      const range = nonPublicRange(a.address);
      if (range !== null) throw refusal(bare, a.address, range);
    }
    return addresses;
  }

  /**
   * A `net.connect` lookup that connects only to the addresses {@link vet} accepted (so a name that
   * resolves differently between the pre-check and the connection is judged on what is connected to).
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.vet(hostname).then(
      (all) => {
        const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        if (wanted.length === 0) {
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }), '', 0);
          return;
        }
        if (options.all) (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, wanted);
        else callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };

  /**
   * An undici connector that applies the policy when a connection is opened: literal addresses are
   * checked before connecting, names through {@link lookup}. Keep-alive connections are reused, so
   * the check costs one classification per new connection, none per request.
   */
  connector(opts: { timeout: number }): buildConnector.connector {
    const connect = buildConnector({ timeout: opts.timeout, lookup: this.lookup } as buildConnector.BuildOptions);
    return (options, callback) => {
      const host = options.hostname;
      const family = isIP(host);
      if (family && !this.trusts(host)) {
        const range = nonPublicRange(host);
        if (range !== null) {
          queueMicrotask(() => callback(refusal(host, host, range), null));
          return;
        }
      }
      return connect(options, callback);
    };
  }
}

/** Lower case, without the brackets of an IPv6 literal or a trailing dot. */
function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

function refusal(host: string, address: string, range: string): GatewayError {
  const what = host === address ? `is a private address (${range})` : `resolves to a private address (${address}, ${range})`;
  return new GatewayError('invalid_request', `custom host '${host}' ${what}; add it to TRUSTED_CUSTOM_HOSTS to allow it`, {
    param: 'custom_host',
  });
}
