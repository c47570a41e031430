import type { Store } from '../infra/store/store.js';
import { listLiveSessionsPage } from '../infra/store/repos/sessions.js';
import { effectiveSetting, type StoredSettings } from '../kernel/settings.js';
import type { OrganisationRole, WorkspaceRole } from '../kernel/roles.js';
import type { AuthKey } from './snapshot.js';
import type { RuntimeSection } from './runtime-section.js';
import { yieldToEventLoop } from './partitioned-map.js';

/** Section of live console sessions: `SessionsSection`, by the SHA-256 of the cookie token. */
export const SESSIONS_SECTION = 'sessions';

/**
 * A console session as the request path checks it, with what its principal is made from: the user's
 * organisation role and memberships, and the organisation's settings. Loaded with the section; never
 * read from SQL per request.
 */
export interface LiveSession {
  readonly id: string;
  readonly userId: string;
  readonly organisationId: string;
  /** Login time (ms). */
  readonly createdAt: number;
  /** When it stops working (ms): the end stored at login, or login + the organisation's current `max_session_ttl` when sooner. */
  readonly expiresAt: number;
  readonly user: { readonly email: string; readonly name: string | null; readonly role: OrganisationRole };
  /** Workspace id → the user's membership role, oldest membership first. */
  readonly memberships: ReadonlyMap<string, WorkspaceRole>;
  readonly organisationSettings: StoredSettings;
  /**
   * The session's key facts per workspace (`''`: organisation-wide), built on first use by
   * `sessionKeyFor`; a reload of the section starts a fresh map, so they follow role changes.
   */
  readonly keys: Map<string, AuthKey>;
}

/** The sessions section's value. */
export type SessionsSection = ReadonlyMap<string, LiveSession>;

const PAGE = 500;

/**
 * Loads every session not revoked whose user is active, page by page: one query for the page's
 * users, one for their memberships and one for their organisations' settings. Reloaded whole on a
 * change of the section (login, logout, users, memberships, organisation and workspace settings).
 */
async function loadSessions(store: Store): Promise<SessionsSection> {
  const out = new Map<string, LiveSession>();
  const db = store.db;
  let afterId: string | undefined;
  for (;;) {
    const rows = await listLiveSessionsPage(store, { afterId, limit: PAGE });
    if (!rows.length) break;
    const userIds = [...new Set(rows.map((r) => r.user_id))];
    const users = new Map(
      (await db.selectFrom('users').selectAll().where('id', 'in', userIds).where('status', '=', 'active').execute()).map((u) => [u.id, u]),
    );
    const members = await db
      .selectFrom('workspace_members')
      .selectAll()
      .where('user_id', 'in', userIds)
      .orderBy('created_at')
      .orderBy('workspace_id')
      .execute();
    const organisationIds = [...new Set(rows.map((r) => r.organisation_id))];
    const organisations = new Map(
      (await db.selectFrom('organisations').select(['id', 'settings']).where('id', 'in', organisationIds).execute()).map((o) => [
        o.id,
        JSON.parse(o.settings) as StoredSettings,
      ]),
    );
    for (const r of rows) {
      const u = users.get(r.user_id);
      if (!u || u.organisation_id !== r.organisation_id) continue;
      const settings = organisations.get(r.organisation_id) ?? {};
      const ttl = Number(effectiveSetting('session_settings.max_session_ttl', null, settings).value);
      const memberships = new Map<string, WorkspaceRole>();
      for (const m of members) if (m.user_id === u.id) memberships.set(m.workspace_id, m.role as WorkspaceRole);
      out.set(r.token_hash, {
        id: r.id,
        userId: u.id,
        organisationId: r.organisation_id,
        createdAt: r.created_at,
        expiresAt: Math.min(r.expires_at, r.created_at + ttl * 1000),
        user: { email: u.email, name: u.name, role: u.role as OrganisationRole },
        memberships,
        organisationSettings: settings,
        keys: new Map(),
      });
    }
    await yieldToEventLoop();
    if (rows.length < PAGE) break;
    afterId = rows[rows.length - 1]!.id;
  }
  return out;
}

/** The sessions section (registered with the core's). */
export const sessionsSection: RuntimeSection<SessionsSection> = { name: SESSIONS_SECTION, load: (store) => loadSessions(store) };
