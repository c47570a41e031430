import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import type { DataPlaneHook, DataPlaneRequest } from '../../data-plane/pipeline/data-plane-hook.js';
import type { RequestContext } from '../../data-plane/pipeline/request-context.js';
import type { LookupScope } from './prompt-catalog.js';
import type { PromptRenderer, RenderedPrompt } from './render-prompt.js';

/** `dp.locals` member set by the prompt completions route: the prompt it already rendered. */
export const RENDERED_PROMPT = 'renderedPrompt';

/** Where a request may look prompts up: its workspace; organisation keys also any prompt id of their organisation. */
export function lookupScope(ctx: RequestContext): LookupScope {
  return { workspaceId: ctx.workspaceId, organisationId: ctx.organisationId, anyWorkspace: ctx.key?.workspaceId === null };
}

/**
 * The prompts data-plane hook.
 * - A chat request whose config carries `prompt_id` runs that prompt: the body's `variables` member
 *   fills the template (absent = no variables), the rendered messages replace the body's `messages`,
 *   and the body's other members override the saved parameters, as on `/v1/prompts/{id}/completions`.
 * - For a prompt run (either way), the prompt's saved credential (virtual key, or provider slug
 *   `@slug`) fills the request's provider when neither `x-gateway-provider` nor
 *   `x-gateway-virtual-key` names one; config leaves that name a provider keep theirs.
 */
export function createPromptHook(renderer: PromptRenderer): DataPlaneHook {
  return {
    name: 'prompts',
    before(dp) {
      let rendered = dp.locals[RENDERED_PROMPT] as RenderedPrompt | undefined;
      if (!rendered) {
        const ref = dp.config?.promptId;
        if (!ref || dp.endpoint !== 'chat') return;
        const { variables = {}, messages: _replaced, ...overrides } = dp.body;
        if (!isObject(variables))
          throw new GatewayError(
            'invalid_request',
            "variables must be a JSON object (the values of the prompt named by the config's prompt_id).",
            { param: 'variables' },
          );
        rendered = renderer.render(ref, variables, overrides, lookupScope(dp.ctx));
        dp.body = rendered.body;
        dp.stream = rendered.body.stream === true;
        dp.locals.promptId = rendered.promptId;
      }
      applySavedCredential(dp, rendered.credential);
    },
  };
}

function applySavedCredential(dp: DataPlaneRequest, c: RenderedPrompt['credential']): void {
  const t = dp.headerTarget;
  if (!t || t.provider || t.virtualKey) return;
  if (c.virtualKey) t.virtualKey = c.virtualKey;
  else if (c.provider) t.provider = c.provider;
}
