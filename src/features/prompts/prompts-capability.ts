import type { Capability } from '../../data-plane/pipeline/capability.js';
import { sectionOf } from '../../runtime/snapshot.js';
import { PROMPTS_SECTION, PromptCatalog, promptsSection } from './prompt-catalog.js';
import { PromptRenderer } from './render-prompt.js';
import { createPromptHook } from './prompt-hook.js';
import { registerPromptRunRoutes } from './run-routes.js';

const EMPTY = new PromptCatalog([]);

/**
 * Prompt templates (issue 6): versioned prompts and partials in the store and the runtime snapshot,
 * `render` and `completions`, and the config key `prompt_id`. Their administration is the declared
 * resources `control-plane/resources/prompts` and `prompt-partials`.
 * @see docs/prompts.md
 */
export const promptsCapability: Capability = {
  name: 'prompts',
  create(core) {
    const renderer = new PromptRenderer(() => sectionOf<PromptCatalog>(core.runtime.current, PROMPTS_SECTION) ?? EMPTY);
    return {
      sections: [promptsSection],
      hooks: [createPromptHook(renderer)],
      routes(app, deps) {
        registerPromptRunRoutes(app, deps, renderer);
      },
    };
  },
};
