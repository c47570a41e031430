import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { sha256Hex } from '../../foundation/lib/hash.js';
import { randomId, uuid } from '../../foundation/lib/ids.js';
import { principalOfKey } from '../../kernel/principal.js';
import { effectiveSetting, type StoredSettings } from '../../kernel/settings.js';
import { isOrganisationAdmin } from '../../kernel/roles.js';
import type { RuntimeChange } from '../../kernel/runtime-change.js';
import { SESSIONS_SECTION, type LiveSession } from '../../runtime/sessions-section.js';
import { recordRuntimeChange } from '../../infra/store/store.js';
import { getOrganisation } from '../../infra/store/repos/organisations.js';
import { insertSession, revokeSession } from '../../infra/store/repos/sessions.js';
import { userOfOrganisation } from '../../infra/store/repos/users.js';
import type { GatewayDeps } from '../../data-plane/pipeline/deps.js';
import { principalOf } from '../../identity/authorize.js';
import { writeAudit } from '../resource/audit.js';
import { ErrorAnswer } from '../resource/mount-resource.js';
import { iso } from '../../identity/paging.js';
import { OrganisationRoleSchema, WorkspaceRoleSchema } from '../resources/users/users.resource.js';
import { clearedCookies, sessionCookies } from '../../identity/session-cookies.js';
import { liveSession } from '../../identity/session-principal.js';
import { StringEnum } from '../../foundation/spec/string-enum.js';
import { Nullable } from '../../foundation/spec/nullable.js';

const LoginBody = Type.Object({ api_key: Type.String({ minLength: 1, maxLength: 512 }) }, { additionalProperties: false });
const SessionAnswer = Type.Object({
  object: Type.Literal('session'),
  id: Type.String(),
  user: Type.Object({ id: Type.String(), email: Type.String(), name: Nullable(Type.String()), role: OrganisationRoleSchema }),
  organisation: Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() }),
  workspaces: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      slug: Type.String(),
      status: StringEnum(['active', 'archived']),
      role: WorkspaceRoleSchema,
    }),
  ),
  created_at: Type.String(),
  expires_at: Type.String(),
});
const answers = { 200: SessionAnswer, '4xx': ErrorAnswer, '5xx': ErrorAnswer };
const tags = ['auth'];
const NO_SESSION = 'No console session: send the gw_session cookie from POST /v1/auth/login.';

/** `Secure` on the cookies: over https, or always with `GATEWAY_COOKIE_SECURE=true`. */
function secure(deps: GatewayDeps, request: FastifyRequest): boolean {
  return deps.settings.cookieSecure || request.protocol === 'https';
}

/** The session's answer: its user, organisation, the workspaces the user acts in (with the role) and its end. */
async function present(deps: GatewayDeps, s: LiveSession) {
  const o = await getOrganisation(deps.store.db, s.organisationId);
  if (!o) throw new GatewayError('invalid_api_key', NO_SESSION);
  const admin = isOrganisationAdmin(s.user.role);
  const workspaces = [];
  for (const w of deps.runtime.current.workspacesById.values()) {
    if (w.organisation_id !== s.organisationId) continue;
    const role = admin ? ('admin' as const) : s.memberships.get(w.id);
    if (role) workspaces.push({ id: w.id, name: w.name, slug: w.slug, status: w.status, role });
  }
  return {
    object: 'session' as const,
    id: s.id,
    user: { id: s.userId, email: s.user.email, name: s.user.name, role: s.user.role },
    organisation: { id: o.id, name: o.name, slug: o.slug },
    workspaces,
    created_at: iso(s.createdAt)!,
    expires_at: iso(s.expiresAt)!,
  };
}

/** The request's session (401 when it authenticated otherwise). */
function sessionOf(request: FastifyRequest): LiveSession {
  const s = request.gw.session;
  if (!s) throw new GatewayError('invalid_api_key', NO_SESSION);
  return s;
}

/**
 * Console sessions for deployments without SSO: `POST /v1/auth/login`, `GET /v1/auth/session`,
 * `POST /v1/auth/logout`. Hand-written rather than a declared resource: they act on the caller's own
 * session, found from its cookie, not on a collection addressed by id, and login is the one route
 * reached without a credential (public: its body carries the user key it checks). Writes run in one
 * transaction with their audit row and the runtime change of the sessions section, which every
 * replica reloads (a logout is refused everywhere within a second).
 */
export function registerSessionRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.post(
    '/v1/auth/login',
    {
      config: { public: true },
      schema: {
        body: LoginBody,
        tags,
        summary: 'Start a console session with a user API key (sets the gw_session and gw_csrf cookies)',
        security: [],
        response: answers,
      },
    },
    async (request, reply) => {
      const now = deps.clock.now();
      const snapshot = deps.runtime.current;
      const key = snapshot.apiKeysByHash.get(sha256Hex(request.body.api_key));
      if (!key || key.type !== 'workspace-user' || !key.user || (key.expiresAt !== null && key.expiresAt <= now)) {
        throw new GatewayError('invalid_api_key', 'Log in with the API key of an active user (a workspace-user key).', {
          param: 'api_key',
        });
      }
      if (key.workspaceId !== null && snapshot.workspacesById.get(key.workspaceId)?.status === 'archived') {
        throw new GatewayError('forbidden', `Workspace '${key.workspaceId}' is archived: its keys are refused until it is restored.`);
      }
      const token = randomId(48);
      const id = uuid();
      const userId = key.user.id;
      const changes: RuntimeChange[] = [{ section: SESSIONS_SECTION, workspaceId: null }];
      let ttl = 0;
      await deps.store.db.transaction().execute(async (trx) => {
        const o = await getOrganisation(trx, key.organisationId);
        const user = await userOfOrganisation(trx, key.organisationId, userId);
        if (!o || !user || user.status !== 'active')
          throw new GatewayError('invalid_api_key', 'Log in with the API key of an active user (a workspace-user key).', {
            param: 'api_key',
          });
        ttl = Number(effectiveSetting('session_settings.max_session_ttl', null, o.settings as StoredSettings).value);
        await insertSession(trx, {
          id,
          token_hash: sha256Hex(token),
          user_id: userId,
          organisation_id: o.id,
          created_at: now,
          expires_at: now + ttl * 1000,
          revoked_at: null,
        });
        await writeAudit(trx, request, principalOfKey(key), now, {
          action: 'session.create',
          resourceType: 'session',
          resourceId: id,
          workspaceId: null,
          details: { user_id: userId, max_session_ttl: ttl },
        });
        await recordRuntimeChange(trx, changes);
      });
      await deps.runtime.committed(changes);
      const s = liveSession(deps.runtime.current, sha256Hex(token));
      if (!s) throw new GatewayError('service_unavailable', 'The session was stored but is not loaded yet; try again.');
      reply.header('set-cookie', sessionCookies(token, ttl, secure(deps, request)));
      return present(deps, s);
    },
  );

  typed.get(
    '/v1/auth/session',
    { config: { session: true }, schema: { tags, summary: 'Read the current console session', response: answers } },
    async (request) => present(deps, sessionOf(request)),
  );

  typed.post(
    '/v1/auth/logout',
    {
      config: { session: true },
      schema: {
        tags,
        summary: 'End the current console session (clears its cookies)',
        response: { 204: Type.Null({ description: 'Session ended' }), '4xx': ErrorAnswer, '5xx': ErrorAnswer },
      },
    },
    async (request, reply) => {
      const s = sessionOf(request);
      const principal = principalOf(request);
      const now = deps.clock.now();
      const changes: RuntimeChange[] = [{ section: SESSIONS_SECTION, workspaceId: null }];
      await deps.store.db.transaction().execute(async (trx) => {
        if (!(await revokeSession(trx, s.organisationId, s.id, now))) throw new GatewayError('invalid_api_key', NO_SESSION);
        await writeAudit(trx, request, principal, now, {
          action: 'session.revoke',
          resourceType: 'session',
          resourceId: s.id,
          workspaceId: null,
          details: { user_id: s.userId, reason: 'logout' },
        });
        await recordRuntimeChange(trx, changes);
      });
      await deps.runtime.committed(changes);
      reply.header('set-cookie', clearedCookies(secure(deps, request)));
      return reply.code(204).send(null);
    },
  );
}
