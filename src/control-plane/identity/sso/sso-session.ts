import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { sha256Hex } from '../../../foundation/lib/hash.js';
import { randomId, uuid } from '../../../foundation/lib/ids.js';
import { FULL_VISIBILITY } from '../../../kernel/data-visibility.js';
import type { Principal } from '../../../kernel/principal.js';
import type { OrganisationRole } from '../../../kernel/roles.js';
import type { RuntimeChange } from '../../../kernel/runtime-change.js';
import { effectiveSetting, type StoredSettings } from '../../../kernel/settings.js';
import { API_KEYS_SECTION } from '../../../runtime/core-sections.js';
import { SESSIONS_SECTION } from '../../../runtime/sessions-section.js';
import { recordRuntimeChange } from '../../../infra/store/store.js';
import { getOrganisation } from '../../../infra/store/repos/organisations.js';
import { insertSession } from '../../../infra/store/repos/sessions.js';
import type { SsoSettingsRecord } from '../../../infra/store/repos/sso.js';
import { insertMember, insertUser } from '../../../infra/store/repos/users.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import { writeAudit } from '../../resource/audit.js';
import { autoCreateUserKey } from '../../resources/api-keys/auto-create-key.js';
import { sessionCookies } from '../../../identity/session-cookies.js';

/** Who the identity provider signed in (claims already checked). */
export interface SsoIdentity {
  email: string;
  name: string | null;
  subject: string;
}

/** The audit actor of a session's own writes: the user, through that session. */
function sessionActor(organisationId: string, sessionId: string, userId: string, role: OrganisationRole): Principal {
  return {
    kind: 'session',
    keyId: sessionId,
    keyType: 'workspace-user',
    organisationId,
    workspaceId: null,
    scopes: [],
    userId,
    organisationRole: role,
    workspaceRole: null,
    visibility: FULL_VISIBILITY,
  };
}

/**
 * Starts the console session of an SSO sign-in, in one transaction: finds the organisation's user by
 * email (case-insensitively); on first login creates them with the settings' `default_role` as a
 * member of the default workspace (and their auto-created key, when `user_api_key_auto_create` is on)
 * if `auto_provision` allows it, else 403; refuses a deactivated user (403). The session lasts
 * `session_settings.max_session_ttl` from now, as one started by `POST /v1/auth/login`. Answers the
 * cookies to set.
 */
export async function startSsoSession(
  deps: GatewayDeps,
  request: FastifyRequest,
  s: SsoSettingsRecord,
  who: SsoIdentity,
): Promise<{ cookies: string[] }> {
  const now = deps.clock.now();
  const token = randomId(48);
  const sessionId = uuid();
  const changes: RuntimeChange[] = [{ section: SESSIONS_SECTION, workspaceId: null }];
  let ttl = 0;
  await deps.store.db.transaction().execute(async (trx) => {
    const o = await getOrganisation(trx, s.organisation_id);
    if (!o) throw new GatewayError('forbidden', 'The organisation of these SSO settings no longer exists.');
    let user = await trx
      .selectFrom('users')
      .selectAll()
      .where('organisation_id', '=', o.id)
      .where(sql<string>`lower(email)`, '=', who.email.toLowerCase())
      .executeTakeFirst();
    let provisioned: Record<string, unknown> | null = null;
    if (!user) {
      if (!s.auto_provision)
        throw new GatewayError(
          'forbidden',
          `'${who.email}' is not a user of this organisation, and SSO does not create users (auto_provision is off).`,
        );
      const created = {
        id: uuid(),
        organisation_id: o.id,
        email: who.email,
        name: who.name,
        role: s.default_role,
        status: 'active' as const,
        created_at: now,
        updated_at: now,
      };
      await insertUser(trx, created);
      const workspaceId = o.default_workspace_id;
      let key: string | null = null;
      if (workspaceId) {
        await insertMember(trx, { workspace_id: workspaceId, user_id: created.id, role: 'member', created_at: now });
        key = await autoCreateUserKey(trx, {
          organisationId: o.id,
          workspaceId,
          userId: created.id,
          now,
          secrets: deps.secrets,
          prefix: deps.settings.apiKeyPrefix,
        });
        changes.push({ section: API_KEYS_SECTION, workspaceId });
      }
      await writeAudit(trx, request, sessionActor(o.id, sessionId, created.id, created.role), now, {
        action: 'user.create',
        resourceType: 'user',
        resourceId: created.id,
        workspaceId: null,
        details: {
          email: created.email,
          role: created.role,
          via: 'sso',
          workspaces: workspaceId ? [{ id: workspaceId, role: 'member' }] : [],
          ...(key ? { auto_api_keys: [key] } : {}),
        },
      });
      provisioned = { user_id: created.id };
      user = { ...created };
    }
    if (user.status !== 'active') throw new GatewayError('forbidden', `The user '${who.email}' is deactivated.`);
    ttl = Number(effectiveSetting('session_settings.max_session_ttl', null, o.settings as StoredSettings).value);
    await insertSession(trx, {
      id: sessionId,
      token_hash: sha256Hex(token),
      user_id: user.id,
      organisation_id: o.id,
      created_at: now,
      expires_at: now + ttl * 1000,
      revoked_at: null,
    });
    await writeAudit(trx, request, sessionActor(o.id, sessionId, user.id, user.role as OrganisationRole), now, {
      action: 'session.create',
      resourceType: 'session',
      resourceId: sessionId,
      workspaceId: null,
      details: {
        user_id: user.id,
        max_session_ttl: ttl,
        via: 'sso',
        issuer: s.issuer,
        subject: who.subject,
        ...(provisioned ? { first_login: true } : {}),
      },
    });
    await recordRuntimeChange(trx, changes);
  });
  await deps.runtime.committed(changes);
  return { cookies: sessionCookies(token, ttl, deps.settings.cookieSecure || request.protocol === 'https') };
}
