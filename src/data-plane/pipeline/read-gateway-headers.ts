import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import { MAX_TIMEOUT_MS } from '../../foundation/lib/timeouts.js';
import type { HeaderTarget } from '../../routing/route-input.js';
import type { RequestDefaults } from '../../runtime/snapshot.js';
import { applyRequestDefaults } from './request-defaults.js';

/** The `x-gateway-*` request headers a data-plane request may carry (decisions.md). */
export interface GatewayHeaders {
  config?: string;
  target: HeaderTarget;
  metadata: Record<string, string>;
  forwardHeaderNames: string[] | null;
  requestTimeoutMs: number | null;
  cacheForceRefresh: boolean;
}

function one(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? v[0] : undefined;
}

/**
 * Reads and checks the gateway headers (400 `invalid_request` naming the header on a bad value), then
 * applies the request's `defaults` (its key's default config and metadata; see `request-defaults.ts`).
 */
export function readGatewayHeaders(h: IncomingHttpHeaders, defaults?: RequestDefaults): GatewayHeaders {
  const auth = one(h, 'authorization');
  const target: HeaderTarget = {
    provider: one(h, 'x-gateway-provider')?.trim() || undefined,
    apiKey: auth?.startsWith('Bearer ') ? auth.slice(7).trim() || undefined : undefined,
    customHost: one(h, 'x-gateway-custom-host')?.trim() || undefined,
    virtualKey: one(h, 'x-gateway-virtual-key')?.trim() || undefined,
  };
  const meta = one(h, 'x-gateway-metadata');
  let metadata: Record<string, string> = EMPTY;
  if (meta !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(meta);
    } catch {
      throw new GatewayError('invalid_request', 'x-gateway-metadata must be a JSON object of string values.', {
        param: 'x-gateway-metadata',
      });
    }
    if (!isObject(parsed))
      throw new GatewayError('invalid_request', 'x-gateway-metadata must be a JSON object of string values.', {
        param: 'x-gateway-metadata',
      });
    metadata = {};
    for (const [k, v] of Object.entries(parsed)) {
      if (typeof v !== 'string')
        throw new GatewayError('invalid_request', `x-gateway-metadata.${k} must be a string.`, { param: 'x-gateway-metadata' });
      metadata[k] = v;
    }
  }
  const timeout = one(h, 'x-gateway-request-timeout');
  let requestTimeoutMs: number | null = null;
  if (timeout !== undefined) {
    requestTimeoutMs = Number(timeout);
    if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs <= 0 || requestTimeoutMs > MAX_TIMEOUT_MS) {
      throw new GatewayError(
        'invalid_request',
        `x-gateway-request-timeout must be a positive integer of milliseconds, at most ${MAX_TIMEOUT_MS}.`,
        { param: 'x-gateway-request-timeout' },
      );
    }
  }
  const fwd = one(h, 'x-gateway-forward-headers');
  const gh: GatewayHeaders = {
    config: one(h, 'x-gateway-config')?.trim() || undefined,
    target,
    metadata,
    forwardHeaderNames: fwd
      ? fwd
          .split(',')
          .map((s) => s.trim().toLowerCase())
          .filter(Boolean)
      : null,
    requestTimeoutMs,
    cacheForceRefresh: one(h, 'x-gateway-cache-force-refresh') === 'true',
  };
  return defaults ? applyRequestDefaults(gh, defaults) : gh;
}

const EMPTY: Record<string, string> = Object.freeze({}) as Record<string, string>;
