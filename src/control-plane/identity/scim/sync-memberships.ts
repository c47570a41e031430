import type { Kysely } from 'kysely';
import type { Database } from '../../../infra/store/schema.js';
import type { WorkspaceRole } from '../../../kernel/roles.js';
import type { SecretBox } from '../../../foundation/lib/secret-box.js';
import { allScimMappings, groupsOfUsers } from '../../../infra/store/repos/scim.js';
import { deleteMember, insertMember, updateMemberRole } from '../../../infra/store/repos/users.js';
import { autoCreateUserKey } from '../../resources/api-keys/auto-create-key.js';

const RANK: Record<WorkspaceRole, number> = { member: 1, manager: 2, admin: 3 };

/** What a membership sync needs besides the transaction. */
export interface SyncContext {
  readonly organisationId: string;
  readonly now: number;
  /** The secret box and key prefix auto-created keys need; absent where no membership can be added (a mapping's removal). */
  readonly secrets?: SecretBox;
  readonly prefix?: string;
}

/**
 * Brings the workspace memberships of `userIds` in line with their SCIM groups (control-plane.md §5),
 * on the caller's transaction: in every workspace a mapping names (and in `alsoWorkspaces`, those of
 * a mapping or group just removed), a user who is in a mapped group is a member with the highest role
 * of their groups' mappings there, and one who is in none is not a member. A user who joins a
 * workspace gets an auto-created key when `user_api_key_auto_create` is on. Workspaces no mapping
 * names are left alone. Answers the ids of the keys created.
 */
export async function syncMemberships(
  db: Kysely<Database>,
  c: SyncContext,
  userIds: readonly string[],
  alsoWorkspaces: readonly string[] = [],
): Promise<string[]> {
  const maps = await allScimMappings(db, c.organisationId);
  const considered = [...new Set([...maps.map((m) => m.workspace_id), ...alsoWorkspaces])];
  const created: string[] = [];
  if (!considered.length || !userIds.length) return created;
  const groups = await groupsOfUsers(db, userIds);
  const current = await db
    .selectFrom('workspace_members')
    .select(['user_id', 'workspace_id', 'role'])
    .where('user_id', 'in', [...userIds])
    .where('workspace_id', 'in', considered)
    .execute();
  for (const userId of userIds) {
    const mine = new Set(groups.filter((g) => g.user_id === userId).map((g) => g.group_id));
    const wanted = new Map<string, WorkspaceRole>();
    for (const m of maps) {
      if (!mine.has(m.group_id)) continue;
      const had = wanted.get(m.workspace_id);
      if (!had || RANK[m.role] > RANK[had]) wanted.set(m.workspace_id, m.role);
    }
    for (const workspaceId of considered) {
      const want = wanted.get(workspaceId);
      const have = current.find((r) => r.user_id === userId && r.workspace_id === workspaceId);
      if (want && !have) {
        await insertMember(db, { workspace_id: workspaceId, user_id: userId, role: want, created_at: c.now });
        const key =
          c.secrets && c.prefix !== undefined
            ? await autoCreateUserKey(db, {
                organisationId: c.organisationId,
                workspaceId,
                userId,
                now: c.now,
                secrets: c.secrets,
                prefix: c.prefix,
              })
            : null;
        if (key) created.push(key);
      } else if (want && have && have.role !== want) {
        await updateMemberRole(db, workspaceId, userId, want);
      } else if (!want && have) {
        await deleteMember(db, workspaceId, userId);
      }
    }
  }
  return created;
}
