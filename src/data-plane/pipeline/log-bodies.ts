import type { RuntimeSnapshot } from '../../runtime/snapshot.js';
import type { RequestContext } from './request-context.js';

/**
 * Whether this request's bodies go into the request log: the `log_bodies` override of the request's
 * workspace when it sets one, else the value baked into the key (its workspace's effective setting,
 * or the organisation's for an organisation key). One map lookup; no I/O.
 */
export function logsBodies(snapshot: RuntimeSnapshot, ctx: RequestContext): boolean {
  const key = ctx.key;
  if (!key) return false;
  const own = snapshot.workspacesById.get(ctx.workspaceId)?.settings.log_bodies;
  return typeof own === 'boolean' ? own : key.logBodies === true;
}
