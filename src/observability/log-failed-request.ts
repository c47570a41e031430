import type { GatewayError } from '../errors/gateway-error.js';
import type { Logger } from './logger.js';

/** What a failed-request line names. */
export interface FailedRequest {
  requestId: string;
  method: string;
  path: string;
  /** Milliseconds since the request arrived. */
  latencyMs: number;
  /** The model the request named, when it did. */
  model?: unknown;
}

/**
 * One `info` line per failed request (status ≥ 400), so an operator sees failures at the default log
 * level: status, error code, provider, model, request id, latency. Never the message (it may quote
 * user input) nor any header.
 */
export function logFailedRequest(logger: Logger, error: GatewayError, r: FailedRequest): void {
  if (error.status < 400) return;
  logger.info(
    {
      status: error.status,
      code: error.publicCode ?? error.code,
      provider: error.provider ?? null,
      model: typeof r.model === 'string' ? r.model.slice(0, 200) : null,
      requestId: r.requestId,
      method: r.method,
      path: r.path,
      latencyMs: Math.round(r.latencyMs),
    },
    'request failed',
  );
}
