import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { getSecretReference } from '../../../infra/store/repos/secret-references.js';
import type { SecretMapping } from '../../../infra/store/repos/integrations.js';
import { openSecretReference } from '../../../infra/secrets/open-reference.js';
import { pickMember } from '../../../infra/secrets/secret-source.js';
import type { ResourceContext } from '../../resource/define-resource.js';

/**
 * Checks `secret_mappings` against the organisation's secret references: each names an existing
 * reference (400 naming `secret_mappings[i].secret_reference_id` otherwise); a `json` mapping's secret is
 * fetched now and must be a JSON object holding `secret_key` (400 naming `secret_mappings[i].value_format`
 * otherwise; a manager that cannot be reached is 502 naming the reference). Mappings hold the
 * reference's id afterwards (a slug is accepted).
 */
export async function checkMappedReferences(ctx: ResourceContext, mappings: readonly SecretMapping[]): Promise<SecretMapping[]> {
  const out: SecretMapping[] = [];
  for (const [i, m] of mappings.entries()) {
    const at = `secret_mappings[${i}]`;
    const ref = await getSecretReference(ctx.db, ctx.scope, m.secret_reference_id);
    if (!ref)
      throw new GatewayError('invalid_request', `${at}.secret_reference_id: unknown secret reference '${m.secret_reference_id}'.`, {
        param: `${at}.secret_reference_id`,
      });
    if (m.value_format === 'json') {
      const text = await ctx.deps.secretResolver.resolve(openSecretReference(ctx.deps.secrets, ref));
      try {
        pickMember(text, m.secret_key ?? null);
      } catch (err) {
        throw new GatewayError(
          'invalid_request',
          `${at}: the secret of reference '${ref.name}' does not parse as value_format 'json' (${(err as Error).message}).`,
          { param: `${at}.value_format` },
        );
      }
    }
    out.push({ ...m, secret_reference_id: ref.id });
  }
  return out;
}
