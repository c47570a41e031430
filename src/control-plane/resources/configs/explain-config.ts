import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { compileConfig } from '../../../routing/compile-config.js';
import type { CompiledConfig } from '../../../routing/compiled-config.js';
import { explainRoute } from '../../../routing/explain-route.js';
import { validateConfig } from '../../../routing/validate-config.js';
import { getConfig } from '../../../infra/store/repos/configs.js';
import { defineCollectionAction, type ResourceContext } from '../../resource/define-resource.js';
import { maskConfigItem } from '../../../foundation/lib/config-credentials.js';
import { openStoredConfig } from './open-stored-config.js';
import { checkConfigReferences } from './check-config-references.js';

const ExplainBody = Type.Object(
  {
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    config_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    request: Type.Optional(
      Type.Object(
        {
          model: Type.Optional(Type.String()),
          metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
          params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
          path: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const Entry = Type.Record(Type.String(), Type.Unknown());
const ExplainAnswer = Type.Object({ object: Type.Literal('config_explanation'), targets: Type.Array(Entry), nodes: Type.Array(Entry) });

/**
 * The config to explain: an inline one (validated like a stored one: 400 `invalid_config` with the
 * JSON path, a virtual key or provider slug the workspace cannot use included), or a stored config of the caller's scope by id or slug (404 otherwise), its credentials
 * opened, compiled with its id so its circuit identities are those the data plane uses.
 */
async function configOf(ctx: ResourceContext, body: { config?: Record<string, unknown>; config_id?: string }): Promise<CompiledConfig> {
  if ((body.config === undefined) === (body.config_id === undefined)) {
    throw new GatewayError('invalid_request', 'Send exactly one of config and config_id.', {
      param: body.config === undefined ? 'config' : 'config_id',
    });
  }
  const isKnown = (name: string) => ctx.deps.targets.getProvider(name) !== undefined;
  if (body.config !== undefined) {
    const inline = compileConfig(validateConfig(body.config, isKnown));
    checkConfigReferences(inline.root, ctx.workspaceId, ctx.deps.targets);
    return inline;
  }
  const stored = await getConfig(ctx.db, ctx.scope, body.config_id!);
  if (!stored || stored.status !== 'active')
    throw new GatewayError('not_found', `Unknown config '${body.config_id}'.`, { param: 'config_id' });
  const compiled = compileConfig(validateConfig(openStoredConfig(ctx.deps.secrets, stored, 'config_id'), isKnown), { id: stored.id });
  checkConfigReferences(compiled.root, stored.workspace_id, ctx.deps.targets);
  return compiled;
}

/**
 * `POST /v1/configs/explain`: how a request would be routed by a config, without calling any provider
 * (`explainRoute`): the targets it can reach with their chance and inherited settings, and every node
 * visited with its conditions, weights, fallback order and circuit states.
 */
export const explainConfig = defineCollectionAction({
  method: 'POST',
  suffix: '/explain',
  permission: 'configs.read',
  summary: 'Explain how a config routes a request (no provider is called)',
  body: ExplainBody,
  answer: ExplainAnswer,
  async run(ctx, body) {
    const config = await configOf(ctx, body);
    const router = ctx.deps.router;
    const explanation = await explainRoute(config.root, body.request ?? {}, (leaf) => router.peekCircuit(leaf));
    // Guardrail items are shown as declared, but a stored config's credentials (webhook headers …) only as hints.
    for (const t of explanation.targets)
      t.settings.guardrails = t.settings.guardrails.map((g) => ({ ...g, item: maskConfigItem(g.list, g.item) }));
    return {
      object: 'config_explanation' as const,
      targets: explanation.targets as unknown as Array<Record<string, unknown>>,
      nodes: explanation.nodes as unknown as Array<Record<string, unknown>>,
    };
  },
});
