import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../server/deps.js';
import { mountResource } from '../control-plane/resource/mount-resource.js';
import { apiKeysResource } from '../control-plane/resources/api-keys/api-keys.resource.js';
import { configsResource } from '../control-plane/resources/configs/configs.resource.js';
import { virtualKeysResource } from '../control-plane/resources/virtual-keys/virtual-keys.resource.js';
import { registerLogRoutes } from './logs.js';
import { registerAuditLogRoutes } from '../control-plane/resources/audit-logs/audit-logs-route.js';

/** Every control-plane route: the declared resources, then the hand-written routes. */
export function registerAdminRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  mountResource(app, deps, apiKeysResource);
  mountResource(app, deps, configsResource);
  mountResource(app, deps, virtualKeysResource);
  registerLogRoutes(app, deps);
  registerAuditLogRoutes(app, deps);
}
