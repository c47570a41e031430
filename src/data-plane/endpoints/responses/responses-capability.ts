import type { Capability } from '../../pipeline/capability.js';
import { registerResponsesRoutes } from './responses-routes.js';

/**
 * The Responses API (`/v1/responses`): forwarded natively to hosts that serve it, run by the gateway
 * over chat completions for every other provider, stored (table `responses`) so GET, DELETE and
 * input items work for any provider.
 * @see ../../docs/responses.md
 */
export const responsesCapability: Capability = {
  name: 'responses',
  create: () => ({ routes: registerResponsesRoutes }),
};
