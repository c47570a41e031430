import { Type } from 'typebox';
import type { Kysely } from 'kysely';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { TenantScope } from '../../kernel/tenant-scope.js';
import type { Database } from '../../infra/store/schema.js';
import { StringEnum } from '../../foundation/spec/string-enum.js';
import { Nullable } from '../../foundation/spec/nullable.js';

/**
 * What the rate-limit and usage-limit policy resources share: the schemas of their common fields and
 * their lifecycle (ids are lower-cased UUIDs; `DELETE` archives and answers the archived policy; an
 * archived policy is read with `?status=archived` and cannot change).
 */
export const PolicyStatus = StringEnum(['active', 'archived']);
export const PolicyName = Nullable(Type.String({ maxLength: 200 }));
export const PolicyConditions = Type.Array(
  Type.Object(
    { key: Type.String({ minLength: 1, maxLength: 200 }), value: Type.String({ maxLength: 512 }) },
    { additionalProperties: false },
  ),
  { maxItems: 32 },
);
export const PolicyGroupBy = Type.Array(
  Type.Object({ key: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
  { maxItems: 8 },
);
export const PolicyReadQuery = Type.Object({ status: Type.Optional(PolicyStatus) }, { additionalProperties: false });
export const PolicyId = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' });
/** `conditions` and `group_by` in answers. */
export const ConditionsAnswer = Type.Array(Type.Object({ key: Type.String(), value: Type.String() }));
export const GroupByAnswer = Type.Array(Type.Object({ key: Type.String() }));

interface PolicyRepo<P> {
  get(db: Kysely<Database>, scope: TenantScope, id: string): Promise<P | undefined>;
  update(db: Kysely<Database>, scope: TenantScope, id: string, patch: { status: 'archived' }, now: number): Promise<boolean>;
}

/** The lifecycle parts of a policy resource's declaration, over its table's `get` and `update`. */
export function policyLifecycle<P extends { id: string; status: string }>(label: string, repo: PolicyRepo<P>) {
  return {
    get: (db: Kysely<Database>, scope: TenantScope, id: string) => repo.get(db, scope, id.toLowerCase()),
    async remove(db: Kysely<Database>, scope: TenantScope, p: P, now: number): Promise<P | void> {
      await repo.update(db, scope, p.id, { status: 'archived' }, now);
      return repo.get(db, scope, p.id);
    },
    readable: (p: P, query: unknown) =>
      p.status ===
      (typeof query === 'object' && query !== null && 'status' in query && query.status === 'archived' ? 'archived' : 'active'),
    writable(p: P): void {
      if (p.status === 'archived')
        throw new GatewayError('conflict', `${label} '${p.id}' is archived and cannot be changed.`, { param: 'id' });
    },
  };
}
