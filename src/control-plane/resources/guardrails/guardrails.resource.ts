import { Type, type Static } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { uuid } from '../../../foundation/lib/ids.js';
import {
  deleteGuardrail,
  getGuardrail,
  insertGuardrail,
  listGuardrails,
  updateGuardrail,
  type StoredGuardrail,
} from '../../../features/guardrails/guardrails-repo.js';
import { getCheck } from '../../../features/guardrails/catalogue.js';
import { actionsOf } from '../../../features/guardrails/guardrail-spec.js';
import { GUARDRAILS_SECTION } from '../../../features/guardrails/guardrails-section.js';
import { defineResource } from '../../resource/define-resource.js';
import { IsoTime, iso } from '../../../identity/paging.js';
import { Slug, slugify } from '../../resource/slug.js';
import {
  keepMaskedConfigCredentials,
  leftoverHintPath,
  maskConfigCredentials,
  openConfigCredentials,
  sealConfigCredentials,
} from '../../../foundation/lib/config-credentials.js';
import { SecretBoxError, type SecretBox } from '../../../foundation/lib/secret-box.js';

const Feedback = Type.Object(
  { value: Type.Optional(Type.Number()), weight: Type.Optional(Type.Number()), metadata: Type.Optional(Type.Object({})) },
  { additionalProperties: false },
);
const Outcome = Type.Object({ deny: Type.Optional(Type.Boolean()), feedback: Type.Optional(Feedback) }, { additionalProperties: false });
const Actions = Type.Object(
  {
    deny: Type.Optional(Type.Boolean()),
    async: Type.Optional(Type.Boolean()),
    on_fail: Type.Optional(Outcome),
    on_success: Type.Optional(Outcome),
  },
  { additionalProperties: false },
);
const Check = Type.Object(
  { id: Type.String({ minLength: 1 }), parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
  { additionalProperties: false },
);
const Checks = Type.Array(Check, { minItems: 1, maxItems: 50 });
const CreateGuardrail = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(Slug),
    workspace_id: Type.Optional(Type.String()),
    checks: Checks,
    actions: Type.Optional(Actions),
  },
  { additionalProperties: false },
);
const UpdateGuardrail = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), checks: Type.Optional(Checks), actions: Type.Optional(Actions) },
  { additionalProperties: false },
);
const ListQuery = Type.Object({ ids: Type.Optional(Type.String({ description: 'comma-separated guardrail ids or slugs' })) });
const GuardrailAnswer = Type.Object({
  id: Type.String(),
  object: Type.Literal('guardrail'),
  name: Type.String(),
  slug: Type.String(),
  workspace_id: Type.String(),
  organisation_id: Type.String(),
  checks: Type.Array(Type.Object({ id: Type.String(), parameters: Type.Record(Type.String(), Type.Unknown()) })),
  actions: Type.Record(Type.String(), Type.Unknown()),
  created_at: IsoTime,
  updated_at: IsoTime,
});

/** Validates the checks of a stored guardrail (400 `invalid_config` naming `checks[i]...`). */
function validateChecks(checks: Array<Static<typeof Check>>): StoredGuardrail['checks'] {
  return checks.map((c, i) => {
    const def = getCheck(c.id);
    if (!def)
      throw new GatewayError('invalid_config', `checks[${i}].id names an unknown guardrail check '${c.id}'`, { param: `checks[${i}].id` });
    const parameters = c.parameters ?? {};
    def.validateParams(parameters, `checks[${i}].parameters`);
    return { id: c.id, parameters };
  });
}

/**
 * Checks as stored: credential members of their parameters (every `headers` value, credential-named
 * parameters) sealed with the secret box, bound to the guardrail id and the JSON path. A member that
 * is still a masked hint (copied from an answer, standing for no stored credential) is refused.
 */
function sealChecks(box: SecretBox, id: string, checks: StoredGuardrail['checks']): StoredGuardrail['checks'] {
  const hinted = leftoverHintPath({ checks }, 'guardrail');
  if (hinted)
    throw new GatewayError(
      'invalid_config',
      `${hinted} is a masked hint that stands for no stored credential of this guardrail; send the credential itself.`,
      { param: hinted },
    );
  return sealConfigCredentials(box, id, { checks }, 'guardrail').checks as StoredGuardrail['checks'];
}

/** The stored checks with their credentials opened (409 `conflict` when they were sealed with another encryption key). */
function openChecks(box: SecretBox, g: StoredGuardrail): StoredGuardrail['checks'] {
  try {
    return openConfigCredentials(box, g.id, { checks: g.checks }, 'guardrail').checks as StoredGuardrail['checks'];
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    throw new GatewayError(
      'conflict',
      `The stored credentials of guardrail '${g.slug}' do not open with this gateway's encryption key (GATEWAY_ENCRYPTION_KEY changed?); send its checks again with their credentials.`,
      { param: 'checks' },
    );
  }
}

/** The public view: credential members of the checks (webhook `headers` …) only as their hints. */
function present(g: StoredGuardrail) {
  const checks = maskConfigCredentials({ checks: g.checks }, 'guardrail').checks as StoredGuardrail['checks'];
  return {
    id: g.id,
    object: 'guardrail' as const,
    name: g.name,
    slug: g.slug,
    workspace_id: g.workspace_id,
    organisation_id: g.organisation_id,
    checks,
    actions: { ...g.actions },
    created_at: iso(g.created_at),
    updated_at: iso(g.updated_at),
  };
}

/**
 * `/v1/guardrails`: stored guardrails (a name, `checks[]` of `{id, parameters}` and `actions`
 * `{deny, async, on_fail, on_success}`), referenced from configs by id or slug. Checks are validated
 * at create and update (400 `invalid_config` naming e.g. `checks[0].parameters.words`). Lists filter
 * by `ids` (comma-separated ids or slugs). DELETE removes the row. Credential members of the checks
 * (a webhook's `headers` …) are write-only: sealed at rest, answered as hints, kept when an answer is
 * saved back with the hints.
 */
export const guardrailsResource = defineResource({
  name: 'guardrail',
  paths: ['/v1/guardrails'],
  tag: 'guardrails',
  noun: { one: 'a guardrail', many: 'guardrails' },
  permissions: { read: 'guardrails.read', write: 'guardrails.write' },
  runtimeSections: [GUARDRAILS_SECTION],
  schemas: { create: CreateGuardrail, update: UpdateGuardrail, listQuery: ListQuery, answer: GuardrailAnswer },
  removal: 'delete',
  repo: {
    get: (db, scope, idOrSlug) => getGuardrail(db, scope, idOrSlug),
    list: (db, scope, query, page) =>
      listGuardrails(db, scope, {
        ids:
          query.ids === undefined
            ? undefined
            : query.ids
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean),
        ...page,
      }),
    remove: (db, scope, g) => deleteGuardrail(db, scope, g.id),
  },
  idOf: (g) => g.id,
  workspaceOf: (g) => g.workspace_id,
  present,
  async create(ctx, body) {
    const id = uuid();
    const record: StoredGuardrail = {
      id,
      organisation_id: ctx.principal.organisationId,
      workspace_id: ctx.workspaceId,
      name: body.name,
      slug: body.slug ?? slugify(body.name, 'guardrail'),
      checks: sealChecks(ctx.deps.secrets, id, validateChecks(body.checks)),
      actions: actionsOf(body.actions ?? {}),
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertGuardrail(ctx.db, ctx.scope, record);
    return { record, details: { name: record.name, slug: record.slug, checks: record.checks.map((c) => c.id) } };
  },
  async update(ctx, g, body) {
    // Hints sent back (an answer saved unchanged) stand for the stored credentials at their place;
    // checks sent with no hint replace the stored ones without opening them.
    const hinted = body.checks !== undefined && leftoverHintPath({ checks: body.checks }, 'guardrail') !== undefined;
    const sent = hinted
      ? (keepMaskedConfigCredentials({ checks: openChecks(ctx.deps.secrets, g) }, { checks: body.checks }, 'guardrail')
          .checks as typeof body.checks)
      : body.checks;
    const checks = sent ? sealChecks(ctx.deps.secrets, g.id, validateChecks(sent)) : undefined;
    const actions = body.actions ? actionsOf(body.actions) : undefined;
    await updateGuardrail(ctx.db, ctx.scope, g.id, { name: body.name, checks, actions }, ctx.now);
    return { record: (await getGuardrail(ctx.db, ctx.scope, g.id)) ?? g, details: { changed: Object.keys(body) } };
  },
});
