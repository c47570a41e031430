import { GatewayError } from './gateway-error.js';

interface FastifyLikeError {
  statusCode?: number;
  code?: string;
  message?: string;
  validation?: Array<{ instancePath?: string; message?: string; params?: Record<string, unknown> }>;
  validationContext?: string;
}

/**
 * Ajv's message for one schema failure (`fallback` when it has none); an enum's failure names what it allows:
 * "must be equal to one of the allowed values (user, assistant)".
 */
export function schemaFailureMessage(e: { message?: string; params?: Record<string, unknown> } | undefined, fallback: string): string {
  const allowed = e?.params?.allowedValues;
  return `${e?.message ?? fallback}${Array.isArray(allowed) ? ` (${allowed.join(', ')})` : ''}`;
}

/**
 * Turns any thrown value (ours, Fastify's, Node's HTTP parser errors, a network error) into a
 * GatewayError. The one place that knows Fastify's and Node's own error codes, so every failure
 * leaves in the decisions.md shape.
 */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  const e = (err ?? {}) as FastifyLikeError;
  if (e.validation) {
    const first = e.validation[0];
    const where = (e.validationContext ?? 'body') + (first?.instancePath ? first.instancePath.replace(/\//g, '.') : '');
    const missing = first?.params && typeof first.params.missingProperty === 'string' ? `.${first.params.missingProperty}` : '';
    const extra = first?.params && typeof first.params.additionalProperty === 'string' ? `.${first.params.additionalProperty}` : '';
    const param = `${where}${missing}${extra}`;
    return new GatewayError('invalid_request', `${param}: ${schemaFailureMessage(first, 'invalid value')}`, { param });
  }
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError('payload_too_large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GatewayError('unsupported_media_type', e.message);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new GatewayError('invalid_request', 'The request body is empty; a JSON object was expected.');
    case 'FST_ERR_BAD_URL':
      return new GatewayError('invalid_request', 'The request URL is malformed (an invalid percent-encoding).');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new GatewayError('uri_too_long', 'A path segment of the request URL is too long.');
    case 'HPE_HEADER_OVERFLOW':
      return new GatewayError('headers_too_large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new GatewayError('request_timeout', 'The request was not received in time.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new GatewayError('invalid_request', `Malformed JSON body: ${e.message ?? ''}`.trim());
    default:
      break;
  }
  // Only input nested deeper than the stack can walk (JSON.stringify, a recursive check) overflows it:
  // the request is refused, the process and other requests are unaffected.
  if (err instanceof RangeError && err.message.includes('Maximum call stack size exceeded')) {
    return new GatewayError('invalid_request', 'The request is nested too deeply.');
  }
  // encodeURIComponent of a user string with a lone surrogate (an id, a name put into an upstream URL).
  if (err instanceof URIError)
    return new GatewayError('invalid_request', 'A value of the request cannot be encoded in a URL (a lone UTF-16 surrogate).');
  if (typeof e.code === 'string' && e.code.startsWith('HPE_')) return new GatewayError('invalid_request', 'Malformed HTTP request.');
  if (e.statusCode === 400 && e.message && /JSON|Unexpected|token/i.test(e.message)) {
    return new GatewayError('invalid_request', `Malformed JSON body: ${e.message}`);
  }
  if (e.statusCode === 413) return new GatewayError('payload_too_large');
  if (e.statusCode === 415) return new GatewayError('unsupported_media_type', e.message);
  if (e.statusCode === 404) return new GatewayError('not_found', e.message);
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return new GatewayError('invalid_request', e.message ?? 'Bad request', { status: e.statusCode });
  }
  return new GatewayError('internal_error', 'Internal error.', { cause: err });
}
