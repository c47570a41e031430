import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { openConfigCredentials } from '../../../foundation/lib/config-credentials.js';
import { SecretBoxError, type SecretBox } from '../../../foundation/lib/secret-box.js';
import type { StoredConfig } from '../../../infra/store/repos/configs.js';

/**
 * A stored config's body with its credentials opened, for an update that keeps them or an
 * explanation. 409 `conflict` when they do not open (sealed with another `GATEWAY_ENCRYPTION_KEY`),
 * naming neither the values nor their ciphertext.
 */
export function openStoredConfig(box: SecretBox, c: StoredConfig, param: string): Record<string, unknown> {
  try {
    return openConfigCredentials(box, c.id, c.config);
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    throw new GatewayError(
      'conflict',
      `The stored credentials of config '${c.slug}' do not open with this gateway's encryption key (GATEWAY_ENCRYPTION_KEY changed?); create the config again with its credentials.`,
      { param },
    );
  }
}
