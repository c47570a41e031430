import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../../data-plane/pipeline/deps.js';
import { mountResource } from '../../control-plane/resource/mount-resource.js';
import { ADMIN_RESOURCES } from '../../control-plane/resources/index.js';
import { registerAuditLogRoutes } from '../../control-plane/resources/audit-logs/audit-logs-route.js';
import { registerOrganisationRoutes } from '../../control-plane/resources/organisation/organisation-routes.js';
import { registerSessionRoutes } from '../../control-plane/identity/session-routes.js';
import { registerAgentCardRoute } from '../../control-plane/resources/agent-servers/agent-card-route.js';
import { registerLogsTailRoute } from '../../control-plane/resources/logs/logs-tail-route.js';
import { registerLogExportRoute } from '../../control-plane/resources/logs/log-export-route.js';
import { registerAnalyticsRoutes } from '../../control-plane/resources/analytics/analytics-routes.js';

/** Every control-plane route: the declared resources, then the hand-written routes. */
export function registerAdminRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  for (const resource of ADMIN_RESOURCES) mountResource(app, deps, resource);
  registerAuditLogRoutes(app, deps);
  registerOrganisationRoutes(app, deps);
  registerSessionRoutes(app, deps);
  registerAgentCardRoute(app, deps);
  registerLogsTailRoute(app, deps);
  registerLogExportRoute(app, deps);
  registerAnalyticsRoutes(app, deps);
}
