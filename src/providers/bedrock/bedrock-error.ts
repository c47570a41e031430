import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { tryParseJson, isObject } from '../../foundation/lib/json.js';
import { pickRetryHeaders, statusType } from '../openai-compatible/map-openai-error.js';

const PROVIDER = 'bedrock';

/**
 * HTTP status of each Bedrock Runtime error type (also used for exception events in a stream,
 * whose names start lower-case: `throttlingException`).
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors
 */
export const BEDROCK_ERROR_STATUS: Readonly<Record<string, number>> = {
  ValidationException: 400,
  AccessDeniedException: 403,
  UnrecognizedClientException: 403,
  InvalidSignatureException: 403,
  IncompleteSignatureException: 403,
  ExpiredTokenException: 403,
  ResourceNotFoundException: 404,
  ModelTimeoutException: 408,
  ModelErrorException: 424,
  ModelStreamErrorException: 424,
  ThrottlingException: 429,
  ServiceQuotaExceededException: 429,
  ModelNotReadyException: 429,
  InternalServerException: 500,
  ServiceUnavailableException: 503,
};

/** `ValidationException` from `ValidationException:http://internal.amazon.com/...` or `com.amazon...#ValidationException`. */
export function bedrockErrorName(raw: string): string {
  const noUrl = raw.split(':')[0]!.trim();
  const hash = noUrl.lastIndexOf('#');
  return hash >= 0 ? noUrl.slice(hash + 1) : noUrl;
}

/** The status of an error type (either case of the first letter); undefined when unknown. */
export function bedrockErrorStatus(name: string): number | undefined {
  return BEDROCK_ERROR_STATUS[name.charAt(0).toUpperCase() + name.slice(1)];
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Maps a Bedrock error answer (`{"message": …}` with the type in the `x-amzn-errortype` header or a
 * `__type` member) to a GatewayError keeping the status; the error type becomes the `code`.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors.html
 */
export function mapBedrockError(status: number, body: string, headers: Record<string, string | string[] | undefined> = {}): GatewayError {
  const parsed = tryParseJson(body);
  const obj = isObject(parsed) ? parsed : undefined;
  const rawType = header(headers, 'x-amzn-errortype') ?? (obj && typeof obj.__type === 'string' ? obj.__type : undefined);
  const name = rawType ? bedrockErrorName(rawType) : null;
  const message =
    (obj && typeof obj.message === 'string' && obj.message) ||
    (obj && typeof obj.Message === 'string' && obj.Message) ||
    (body && body.length < 500 && !obj ? body : '') ||
    `Bedrock answered with status ${status}${name ? ` (${name})` : ''}.`;
  return new GatewayError('provider_error', message, {
    status,
    type: statusType(status),
    provider: PROVIDER,
    publicCode: name,
    headers: pickRetryHeaders(headers),
  });
}

/**
 * The error carried by an exception event of a ConverseStream (`:message-type exception`,
 * `:exception-type throttlingException`, body `{"message": …}`), with the type's status.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html
 */
export function mapBedrockStreamException(exceptionType: string, body: string): GatewayError {
  const parsed = tryParseJson(body);
  const message =
    isObject(parsed) && typeof parsed.message === 'string' ? parsed.message : body || `Bedrock stream failed (${exceptionType}).`;
  const status = bedrockErrorStatus(exceptionType) ?? 502;
  const name = exceptionType.charAt(0).toUpperCase() + exceptionType.slice(1);
  return new GatewayError('provider_error', message, { status, type: statusType(status), provider: PROVIDER, publicCode: name });
}
