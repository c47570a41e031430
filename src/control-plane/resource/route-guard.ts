import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, preValidationHookHandler } from 'fastify';
import type { Permission } from '../../kernel/permissions.js';
import { isPermission } from '../../kernel/permissions.js';
import { authorize, principalOf } from '../../identity/authorize.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The permission a `/v1` route needs (checked before validation, for every request). */
    permission?: Permission;
    /** Set on a `/v1` route served without a gateway key (signed links): no permission is checked. */
    public?: boolean;
    /**
     * Set on a route about the caller's own console session (`/v1/auth/session`, `/v1/auth/logout`):
     * authenticated like every `/v1` route, no permission checked; the handler refuses a request made
     * without a session (401).
     */
    session?: boolean;
  }
}

/** Thrown at start-up for a `/v1` route that declares neither a permission nor `public: true` (nor `session: true`). */
export class UndeclaredPermissionError extends Error {
  constructor(method: string, url: string) {
    super(`${method} ${url} declares no permission (route config 'permission') and is not public (config 'public: true').`);
    this.name = 'UndeclaredPermissionError';
  }
}

function checkerFor(permission: Permission): preValidationHookHandler {
  return function checkPermission(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
    authorize(principalOf(request), permission);
    done();
  };
}

/**
 * Installs the route guard: every `/v1` route registered afterwards must declare its permission in
 * its `config` (or be `public: true`), else registering it throws and the app does not start; the
 * permission is then checked for each request, before validation, in this one place.
 */
export function installRouteGuard(app: FastifyInstance): void {
  const checkers = new Map<Permission, preValidationHookHandler>();
  app.addHook('onRoute', (route) => {
    if (route.url !== '/v1' && !route.url.startsWith('/v1/')) return;
    const config = route.config;
    if (config?.public === true || config?.session === true) return;
    const permission = config?.permission;
    const method = Array.isArray(route.method) ? route.method.join(',') : route.method;
    if (permission === undefined || !isPermission(permission)) throw new UndeclaredPermissionError(method, route.url);
    let check = checkers.get(permission);
    if (!check) checkers.set(permission, (check = checkerFor(permission)));
    const existing = route.preValidation;
    route.preValidation = existing === undefined ? [check] : [check, ...(Array.isArray(existing) ? existing : [existing])];
  });
}
