import type { Capability } from '../../pipeline/capability.js';
import { ResourceForwarder } from '../files/provider-resource.js';
import { registerFineTuningRoutes } from './fine-tuning-routes.js';

/**
 * Fine-tuning (issue 10): `/v1/fine_tuning/jobs` forwarded to providers with a tuning API.
 * @see https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const fineTuningCapability: Capability = {
  name: 'fine-tuning',
  create() {
    return {
      routes(app, deps) {
        registerFineTuningRoutes(app, deps, new ResourceForwarder(deps));
      },
    };
  },
};
