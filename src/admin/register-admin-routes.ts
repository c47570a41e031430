import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../server/deps.js';
import { registerApiKeyRoutes } from './api-keys.js';
import { registerConfigRoutes } from './configs.js';
import { registerVirtualKeyRoutes } from './virtual-keys.js';
import { registerLogRoutes } from './logs.js';

/** Every control-plane route. A capability adds its `register…Routes` call here. */
export function registerAdminRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  registerApiKeyRoutes(app, deps);
  registerConfigRoutes(app, deps);
  registerVirtualKeyRoutes(app, deps);
  registerLogRoutes(app, deps);
}
