import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { getSecretReference, type HeaderSecretMapping } from '../../../infra/store/repos/secret-references.js';
import { SECRET_PLACEHOLDER, isTemplate, mappedHeaderName } from '../../../infra/secrets/mapped-headers.js';
import { openSecretReference } from '../../../infra/secrets/open-reference.js';
import { pickMember } from '../../../infra/secrets/secret-source.js';
import type { ResourceContext } from '../../resource/define-resource.js';

/** One header mapping as MCP integrations and agent servers take and answer it (docs/secrets.md). */
export const HeaderSecretMappingSchema = Type.Object(
  {
    target_field: Type.String({ minLength: 1, maxLength: 300, description: '`headers.<Header-Name>`: the header the secret fills.' }),
    secret_reference_id: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Id or slug of a secret reference (answered as its id).',
    }),
    secret_key: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'The member of a JSON secret to use.' })),
    value_format: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description:
          '`string` (default: the value as it is), `json` (needs secret_key), or a template holding `{{secret}}` once, such as `Bearer {{secret}}`.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The `secret_mappings` list of a write (at most 50). */
export const HeaderSecretMappings = Type.Array(HeaderSecretMappingSchema, { maxItems: 50 });

/** 400 naming `param`. */
function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

/** What a resource checks of a header name: why it may not be configured, or undefined when it may. */
export type HeaderNameCheck = (name: string) => string | undefined;

/**
 * Checks header `secret_mappings` at save, the same way integrations' are checked:
 * - `target_field` is `headers.<name>` with a name the resource accepts (`nameProblem`), no header twice
 *   in any case (400 naming `secret_mappings[i].target_field`);
 * - `value_format` is `string`, `json` (needs `secret_key`) or a one-line template holding `{{secret}}`
 *   exactly once (400 naming `secret_mappings[i].value_format` / `.secret_key`);
 * - `secret_reference_id` (id or slug) names an active reference of the organisation and, for a row of
 *   one workspace (`workspaceId`), one shared with that workspace (400 naming
 *   `secret_mappings[i].secret_reference_id`); an organisation-level row (null) may name any, each
 *   workspace using it being checked at call time;
 * - with `secret_key`, the secret is fetched now (through the resolver's cache) and must be a JSON object
 *   holding that member (400 naming `secret_mappings[i].secret_key`; a manager that cannot be reached is
 *   502 naming the reference).
 * Answers the mappings with references by id.
 */
export async function checkHeaderMappings(
  ctx: ResourceContext,
  mappings: readonly HeaderSecretMapping[],
  nameProblem: HeaderNameCheck,
  workspaceId: string | null,
): Promise<HeaderSecretMapping[]> {
  const seen = new Set<string>();
  const out: HeaderSecretMapping[] = [];
  for (const [i, m] of mappings.entries()) {
    const at = `secret_mappings[${i}]`;
    if (!m.target_field.startsWith('headers.')) throw invalid(`${at}.target_field`, `${at}.target_field must be 'headers.<Header-Name>'.`);
    const name = mappedHeaderName(m);
    const problem = nameProblem(name);
    if (problem) throw invalid(`${at}.target_field`, `${at}.target_field: ${problem}`);
    if (seen.has(name.toLowerCase())) throw invalid(`${at}.target_field`, `${at}.target_field: header '${name}' is mapped twice.`);
    seen.add(name.toLowerCase());
    if (m.value_format === 'json' && !m.secret_key)
      throw invalid(`${at}.secret_key`, `${at}.secret_key is required with value_format 'json' (it picks the member of the JSON secret).`);
    if (isTemplate(m.value_format)) {
      if (m.value_format.split(SECRET_PLACEHOLDER).length !== 2)
        throw invalid(
          `${at}.value_format`,
          `${at}.value_format must be 'string', 'json' or a template holding ${SECRET_PLACEHOLDER} exactly once (such as 'Bearer ${SECRET_PLACEHOLDER}').`,
        );
      if (/[\r\n\0]/.test(m.value_format)) throw invalid(`${at}.value_format`, `${at}.value_format cannot contain line breaks or NUL.`);
    }
    const ref = await getSecretReference(ctx.db, ctx.scope, m.secret_reference_id);
    if (!ref) throw invalid(`${at}.secret_reference_id`, `${at}.secret_reference_id: unknown secret reference '${m.secret_reference_id}'.`);
    if (workspaceId !== null && !ref.allow_all_workspaces && !ref.allowed_workspaces.includes(workspaceId)) {
      throw invalid(
        `${at}.secret_reference_id`,
        `${at}.secret_reference_id: secret reference '${m.secret_reference_id}' is not shared with this workspace (its allowed_workspaces).`,
      );
    }
    if (m.secret_key) {
      const text = await ctx.deps.secretResolver.resolve(openSecretReference(ctx.deps.secrets, ref));
      try {
        pickMember(text, m.secret_key);
      } catch (err) {
        throw invalid(
          `${at}.secret_key`,
          `${at}: the secret of reference '${ref.name}' cannot fill header '${name}' (${(err as Error).message}).`,
        );
      }
    }
    out.push({ ...m, secret_reference_id: ref.id });
  }
  return out;
}
