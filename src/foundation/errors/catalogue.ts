/**
 * The catalogue of user-facing error codes (decisions.md, "Errors"). Every GatewayError names one of
 * these; the status and type come from here so one code always answers the same way.
 */
export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, type: 'invalid_request_error', message: 'The request is invalid.' },
  invalid_config: { status: 400, type: 'invalid_request_error', message: 'The config is invalid.' },
  invalid_api_key: { status: 401, type: 'authentication_error', message: 'Missing or invalid gateway API key.' },
  forbidden: { status: 403, type: 'permission_error', message: 'The API key lacks the scope or role for this action.' },
  not_found: { status: 404, type: 'not_found_error', message: 'Not found.' },
  request_timeout: { status: 408, type: 'timeout_error', message: 'The request timed out.' },
  conflict: { status: 409, type: 'conflict_error', message: 'The write conflicts with the current state.' },
  payload_too_large: { status: 413, type: 'invalid_request_error', message: 'The request body is too large.' },
  uri_too_long: { status: 414, type: 'invalid_request_error', message: 'The request URL is too long.' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error', message: 'Unsupported content type.' },
  headers_too_large: { status: 431, type: 'invalid_request_error', message: 'The request headers are too large.' },
  client_closed_request: { status: 499, type: 'client_error', message: 'The client closed the connection before the answer was complete.' },
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error', message: 'Rate limit exceeded.' },
  usage_limit_exceeded: { status: 429, type: 'rate_limit_error', message: 'Usage limit exceeded.' },
  guardrail_denied: { status: 446, type: 'guardrail_error', message: 'A guardrail denied the request.' },
  internal_error: { status: 500, type: 'server_error', message: 'Internal error.' },
  provider_error: { status: 502, type: 'provider_error', message: 'The provider returned an error.' },
  provider_authentication_error: { status: 401, type: 'authentication_error', message: 'The provider refused the credential it was sent.' },
  provider_unreachable: { status: 502, type: 'provider_error', message: 'The provider could not be reached.' },
  circuit_open: { status: 503, type: 'provider_error', message: 'Every target is unavailable (circuit open).' },
  service_unavailable: { status: 503, type: 'server_error', message: 'The gateway is shutting down.' },
  store_unavailable: { status: 503, type: 'server_error', message: 'The database is unreachable; try again shortly.' },
} as const satisfies Record<string, { status: number; type: string; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
