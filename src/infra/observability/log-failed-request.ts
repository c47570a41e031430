import type { GatewayError } from '../../foundation/errors/gateway-error.js';
import { redactSecrets } from '../../foundation/lib/redact-secrets.js';
import type { Logger } from './logger.js';

/** The longest message a failed-request line carries (a message may quote the request). */
const MAX_MESSAGE = 500;

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
 * level and why: status, error code, the error's message (secrets redacted, at most 500 characters)
 * and `param` (the field or header at fault), provider, model, request id, latency. Never a header.
 */
export function logFailedRequest(logger: Logger, error: GatewayError, r: FailedRequest): void {
  if (error.status < 400) return;
  logger.info(
    {
      status: error.status,
      code: error.publicCode ?? error.code,
      message: redactSecrets(error.message.length > MAX_MESSAGE ? error.message.slice(0, MAX_MESSAGE) + '…' : error.message),
      param: error.param ?? null,
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
