import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { updateIntegration, type Integration } from '../../../infra/store/repos/integrations.js';
import { defineAction, type ResourceAction, type ResourceContext } from '../../resource/define-resource.js';
import { checkCustomHost } from './integration-input.js';
import { PriceConfigSchema } from '../../../infra/pricing/price-config.js';

const ModelSchema = Type.Object(
  {
    slug: Type.String({ minLength: 1, maxLength: 200 }),
    enabled: Type.Boolean(),
    is_custom: Type.Optional(Type.Boolean()),
    base_model_slug: Type.Optional(Type.String({ minLength: 1 })),
    // Checked by hand below, to name `models[i].configurations.custom_host` as the spec asks.
    configurations: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    pricing_config: Type.Optional(PriceConfigSchema),
  },
  { additionalProperties: false },
);
const ModelsBody = Type.Object(
  { allow_all_models: Type.Optional(Type.Boolean()), models: Type.Array(ModelSchema, { maxItems: 1000 }) },
  { additionalProperties: false },
);
const ModelsAnswer = Type.Object({
  object: Type.Literal('list'),
  allow_all_models: Type.Boolean(),
  data: Type.Array(ModelSchema),
  total: Type.Integer(),
});
const WorkspacesBody = Type.Object(
  {
    workspaces: Type.Array(Type.Object({ id: Type.String({ minLength: 1 }), enabled: Type.Boolean() }, { additionalProperties: false }), {
      maxItems: 1000,
    }),
  },
  { additionalProperties: false },
);
const WorkspacesAnswer = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(Type.Object({ id: Type.String(), enabled: Type.Boolean() })),
  total: Type.Integer(),
});

function modelsAnswer(i: Integration) {
  const data = i.models ?? [];
  return { object: 'list' as const, allow_all_models: i.allow_all_models, data, total: data.length };
}

/** Organisation-level integrations are changed by organisation principals only. */
function assertOrgWrite(ctx: ResourceContext, i: Integration): void {
  if (i.workspace_id === null && !ctx.scope.organisationWide)
    throw new GatewayError('forbidden', 'Organisation-level integrations are managed by organisation owners and admins.', { param: 'id' });
}

/** `GET` and `PUT /v1/integrations/{id}/integration-models`: the models its providers may call. */
export const integrationModelsActions: ReadonlyArray<ResourceAction<Integration>> = [
  defineAction<Integration, typeof ModelsBody, typeof ModelsAnswer>({
    verb: 'read_models',
    method: 'GET',
    suffix: '/integration-models',
    permission: 'integrations.read',
    write: false,
    summary: 'List the models of an integration',
    answer: ModelsAnswer,
    run: async (_ctx, i) => ({ answer: modelsAnswer(i) }),
  }),
  defineAction<Integration, typeof ModelsBody, typeof ModelsAnswer>({
    verb: 'update_models',
    method: 'PUT',
    suffix: '/integration-models',
    permission: 'integrations.write',
    write: true,
    summary: 'Replace the models of an integration',
    body: ModelsBody,
    answer: ModelsAnswer,
    async run(ctx, i, body) {
      assertOrgWrite(ctx, i);
      const seen = new Set<string>();
      for (const [n, m] of body.models.entries()) {
        if (seen.has(m.slug))
          throw new GatewayError('invalid_request', `models[${n}].slug '${m.slug}' is listed twice.`, { param: `models[${n}].slug` });
        seen.add(m.slug);
        if (m.configurations === undefined) continue;
        const param = `models[${n}].configurations.custom_host`;
        const keys = Object.keys(m.configurations);
        if (keys.length === 0 || keys.some((k) => k !== 'custom_host'))
          throw new GatewayError(
            'invalid_request',
            `models[${n}].configurations must be a non-empty object holding a valid custom_host URL and nothing else.`,
            { param },
          );
        await checkCustomHost(ctx.deps.http.outbound, m.configurations.custom_host, param);
      }
      const next: Integration = {
        ...i,
        allow_all_models: body.allow_all_models ?? i.allow_all_models,
        models: body.models as Integration['models'],
      };
      await updateIntegration(ctx.db, ctx.scope, next, ctx.now);
      return { answer: modelsAnswer(next), record: next, details: { allow_all_models: next.allow_all_models, models: body.models.length } };
    },
  }),
];

/** `PUT /v1/integrations/{id}/workspaces`: shares an organisation integration with workspaces (or stops). */
export const integrationWorkspacesAction: ResourceAction<Integration> = defineAction<
  Integration,
  typeof WorkspacesBody,
  typeof WorkspacesAnswer
>({
  verb: 'update_workspaces',
  method: 'PUT',
  suffix: '/workspaces',
  permission: 'integrations.write',
  write: true,
  summary: 'Share an organisation integration with workspaces',
  body: WorkspacesBody,
  answer: WorkspacesAnswer,
  async run(ctx, i, body) {
    if (i.workspace_id !== null)
      throw new GatewayError('invalid_request', 'Only organisation-level integrations are shared with workspaces.', {
        param: 'workspaces',
      });
    assertOrgWrite(ctx, i);
    const shared = new Set(i.workspaces);
    for (const [n, w] of body.workspaces.entries()) {
      const ws =
        ctx.deps.runtime.current.workspacesById.get(w.id) ?? ctx.deps.runtime.current.workspacesBySlug.get(`${i.organisation_id}:${w.id}`);
      // Another organisation's workspace is as unknown as a missing one.
      if (!ws || ws.organisation_id !== i.organisation_id)
        throw new GatewayError('not_found', `Unknown workspace '${w.id}'.`, { param: `workspaces[${n}].id` });
      if (w.enabled) shared.add(ws.id);
      else shared.delete(ws.id);
    }
    const next: Integration = { ...i, workspaces: [...shared].sort() };
    await updateIntegration(ctx.db, ctx.scope, next, ctx.now);
    const data = next.workspaces.map((id) => ({ id, enabled: true }));
    return { answer: { object: 'list' as const, data, total: data.length }, record: next, details: { workspaces: body.workspaces } };
  },
});
