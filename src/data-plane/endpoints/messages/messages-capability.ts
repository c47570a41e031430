import type { Capability } from '../../pipeline/capability.js';
import { registerMessagesRoutes } from './messages-routes.js';

/**
 * The Anthropic Messages API (`/v1/messages`, `/v1/messages/count_tokens`): passed through byte for
 * byte to targets that speak it, translated through the common chat schema for every other provider.
 * @see ../../docs/clients.md
 */
export const messagesCapability: Capability = {
  name: 'messages',
  create: () => ({ routes: registerMessagesRoutes }),
};
