import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { GatewayDeps } from '../../data-plane/pipeline/deps.js';
import { handleDataPlane } from '../../data-plane/pipeline/handle-data-plane.js';
import { PromptRunBody, checkParameterKeys } from './hyperparameters.js';
import { RENDERED_PROMPT, lookupScope } from './prompt-hook.js';
import type { PromptRenderer, RenderedPrompt } from './render-prompt.js';

type RunBody = Static<typeof PromptRunBody>;

const PromptParams = Type.Object({ promptId: Type.String({ minLength: 1 }) });

/** Renders the prompt a run request names, after checking the body's root keys. */
function renderFor(
  renderer: PromptRenderer,
  request: { params: unknown; body: unknown; gw: Parameters<typeof lookupScope>[0] },
): RenderedPrompt {
  const body = request.body as RunBody;
  checkParameterKeys(body, 'body');
  const { variables, ...overrides } = body;
  return renderer.render((request.params as { promptId: string }).promptId, variables, overrides, lookupScope(request.gw));
}

/**
 * `POST /v1/prompts/{promptId}/render` (the rendered prompt object, not sent to a model) and
 * `POST /v1/prompts/{promptId}/completions` (rendered, then run through the whole data plane: config,
 * hooks, routing, cache, guardrails, providers). A non-streamed completion answers
 * `{status, headers, body}`; `stream: true` streams chat chunks.
 */
export function registerPromptRunRoutes(app: FastifyInstance, deps: GatewayDeps, renderer: PromptRenderer): void {
  const tags = ['prompts'];
  const schema = { params: PromptParams, body: PromptRunBody, tags };

  app.post(
    '/v1/prompts/:promptId/render',
    {
      config: { permission: 'prompts.render', forwardsBody: true },
      schema: { ...schema, summary: 'Render a prompt template without running it' },
    },
    async (request) => {
      return { success: true, data: renderFor(renderer, request).body };
    },
  );

  app.post(
    '/v1/prompts/:promptId/completions',
    {
      config: { permission: 'completions.write', forwardsBody: true, dataPlane: 'chat' },
      schema: { ...schema, summary: 'Render a prompt template and run it as a chat completion' },
    },
    async (request, reply) => {
      const rendered = renderFor(renderer, request);
      // An organisation key may run a prompt of any of its workspaces: the request acts in that workspace.
      if (request.gw.key?.workspaceId === null) request.gw.workspaceId = rendered.workspaceId;
      return handleDataPlane(deps, request, reply, 'chat', rendered.body, {
        locals: { promptId: rendered.promptId, [RENDERED_PROMPT]: rendered },
        shapeJson: ({ status, headers, body }) => ({ status: String(status), headers, body }),
      });
    },
  );
}
