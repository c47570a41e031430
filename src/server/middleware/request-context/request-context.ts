import type { AuthKey } from '../../../runtime/snapshot.js';

/** Per-request facts every route reads: ids, the authenticated key, the effective workspace. */
export interface RequestContext {
  requestId: string;
  traceId: string;
  startedAt: number;
  key?: AuthKey;
  organisationId: string;
  /** The key's workspace, or the organisation's default workspace for organisation keys. */
  workspaceId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    gw: RequestContext;
  }
}
