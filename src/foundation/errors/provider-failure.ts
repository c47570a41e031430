import { GatewayError } from './gateway-error.js';

/**
 * A provider's mapped error as the client sees it: a 401 from the provider becomes
 * `provider_authentication_error` (status kept, message prefixed with the provider's name), so a
 * refused provider credential never reads like a refused gateway key (`invalid_api_key`). Any other
 * error is returned unchanged.
 */
export function asProviderFailure(err: GatewayError, provider: string): GatewayError {
  if (err.status !== 401 || err.code === 'provider_authentication_error') return err;
  const message = err.message.startsWith(`${provider}: `) ? err.message : `${provider}: ${err.message}`;
  return new GatewayError('provider_authentication_error', message, { provider, status: 401, retryable: false, cause: err });
}
