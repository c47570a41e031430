import { ERROR_CATALOGUE, type ErrorCode } from './catalogue.js';
import type { ErrorBody } from '../spec/error-body.js';
import { redactSecrets } from '../lib/redact-secrets.js';

export interface GatewayErrorOptions {
  /** Overrides the catalogue status (a provider's own status is kept this way). */
  status?: number;
  /** Overrides the catalogue type (a provider's own error type). */
  type?: string;
  param?: string | null;
  /** Set when the error is a provider's answer. */
  provider?: string;
  /** Whether a retry or fallback may help. Defaults from the status. */
  retryable?: boolean;
  /** Extra response headers (Retry-After on 429, ...). */
  headers?: Record<string, string>;
  /** A code string to show instead of the catalogue key (a provider's own code). */
  publicCode?: string | null;
  /** Extra top-level body members (for example `hook_results`). */
  extra?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The single error type of the gateway. Thrown anywhere, turned into the decisions.md body in one
 * place (`toErrorBody`). `code` is a catalogue key; `status` is the HTTP status to answer with.
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  readonly provider?: string;
  readonly retryable: boolean;
  readonly headers?: Record<string, string>;
  readonly publicCode: string | null;
  readonly extra?: Record<string, unknown>;

  constructor(code: ErrorCode, message?: string, opts: GatewayErrorOptions = {}) {
    const entry = ERROR_CATALOGUE[code];
    super(message ?? entry.message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.status = opts.status ?? entry.status;
    this.type = opts.type ?? entry.type;
    this.param = opts.param ?? null;
    this.provider = opts.provider;
    this.retryable = opts.retryable ?? (this.status === 429 || this.status >= 500 || this.status === 408);
    this.headers = opts.headers;
    this.publicCode = opts.publicCode === undefined ? code : opts.publicCode;
    this.extra = opts.extra;
  }

  /**
   * The decisions.md body for this error, the one rendering of errors for clients, streams and the
   * request log: known secret shapes are removed from the message (`redactSecrets`).
   */
  toBody(): ErrorBody {
    const body: ErrorBody = {
      error: { message: redactSecrets(this.message), type: this.type, param: this.param, code: this.publicCode },
    };
    if (this.provider) body.error.provider = this.provider;
    if (this.extra) Object.assign(body, this.extra);
    return body;
  }
}

/** Narrows an unknown thrown value. */
export function isGatewayError(err: unknown): err is GatewayError {
  return err instanceof GatewayError;
}
