import { Ajv, type ValidateFunction } from 'ajv';
import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { schemaFailureMessage } from '../../../foundation/errors/to-gateway-error.js';
import { providerSettings } from '../../../providers/registry.js';
import { CustomHostGuard } from '../../../routing/custom-host-guard.js';
import type { OutboundPolicy } from '../../../foundation/lib/outbound-policy.js';
import type { SecretBox } from '../../../foundation/lib/secret-box.js';
import { isCredentialKey } from '../../../foundation/lib/credential-settings.js';
import { sealValues } from '../../../foundation/lib/sealed-values.js';

export { credentialHint } from '../../../foundation/lib/credential-settings.js';
import type { SecretMapping } from '../../../infra/store/repos/integrations.js';

const ajv = new Ajv({ allErrors: false, strict: false });
const validators = new Map<string, ValidateFunction>();

/** Settings every integration may hold whatever its provider: the custom host. */
const COMMON_SETTINGS = { custom_host: Type.String({ minLength: 1 }) };

/** The validator of one provider's `configurations` (its own settings and `custom_host`, nothing else). */
function validatorOf(provider: string): ValidateFunction {
  let v = validators.get(provider);
  if (!v) {
    const own = providerSettings(provider) ?? {};
    const properties = Object.fromEntries(Object.entries({ ...COMMON_SETTINGS, ...own }).map(([k, s]) => [k, Type.Optional(s)]));
    v = ajv.compile(Type.Object(properties, { additionalProperties: false }));
    validators.set(provider, v);
  }
  return v;
}

/** 400 naming `param`. */
function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

/** Refuses an `ai_provider_id` the registry does not know (400 naming it). */
export function checkProvider(name: string): void {
  if (!providerSettings(name))
    throw invalid(
      'ai_provider_id',
      `Unknown ai_provider_id '${name}': it must be a provider of the gateway's registry (openai, anthropic, bedrock, ...).`,
    );
}

/** Validates `configurations` against the provider's settings; 400 naming the first unknown or bad key. */
export function checkConfigurations(provider: string, configurations: Record<string, unknown>): void {
  const validate = validatorOf(provider);
  if (validate(configurations)) return;
  const e = validate.errors?.[0];
  if (!e) throw invalid('configurations', 'Invalid configurations.');
  if (e.keyword === 'additionalProperties') {
    const key = String((e.params as { additionalProperty: string }).additionalProperty);
    throw invalid(`configurations.${key}`, `Unknown configuration key '${key}' for provider '${provider}'.`);
  }
  const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  throw invalid(`configurations.${path}`, `configurations.${path} ${schemaFailureMessage(e, 'is invalid')}.`);
}

/**
 * Checks a custom host at save time: a valid http(s) URL whose host is not private, loopback or
 * link-local unless trusted (`TRUSTED_CUSTOM_HOSTS`); 400 naming `param` otherwise. The same guard
 * runs again when the gateway connects.
 */
export async function checkCustomHost(policy: OutboundPolicy, url: unknown, param: string): Promise<void> {
  if (typeof url !== 'string' || !URL.canParse(url)) throw invalid(param, `${param} must be a valid URL.`);
  try {
    await new CustomHostGuard(policy).check(url);
  } catch (err) {
    if (err instanceof GatewayError) throw invalid(param, err.message);
    throw err;
  }
}

/**
 * Validates `secret_mappings`: the target is `key` or `configurations.<a setting of the provider>`, no
 * target twice, and `value_format: json` needs a `secret_key` to pick a member.
 */
export function checkSecretMappings(provider: string, mappings: readonly SecretMapping[]): void {
  const own = { ...COMMON_SETTINGS, ...(providerSettings(provider) ?? {}) };
  const seen = new Set<string>();
  mappings.forEach((m, i) => {
    const at = `secret_mappings[${i}]`;
    const field = m.target_field;
    if (field !== 'key' && !(field.startsWith('configurations.') && field.slice('configurations.'.length) in own)) {
      throw invalid(`${at}.target_field`, `${at}.target_field must be 'key' or 'configurations.<setting>' of provider '${provider}'.`);
    }
    if (seen.has(field)) throw invalid(`${at}.target_field`, `${at}.target_field '${field}' is mapped twice.`);
    seen.add(field);
    if (m.value_format === 'json' && !m.secret_key)
      throw invalid(`${at}.secret_key`, `${at}.secret_key is required with value_format 'json' (it picks the member of the JSON secret).`);
  });
}

/**
 * Splits configurations into what is shown (credential-like values replaced by their hint) and the
 * credentials, sealed together (context `<id>:configurations`; '' when there are none).
 */
export function sealConfigurations(
  box: SecretBox,
  id: string,
  configurations: Record<string, unknown>,
): { shown: Record<string, unknown>; sealed: string } {
  const secret = Object.fromEntries(Object.entries(configurations).filter(([k]) => isCredentialKey(k)));
  const { sealed, hints } = sealValues(box, `${id}:configurations`, secret);
  return { shown: { ...configurations, ...hints }, sealed };
}
