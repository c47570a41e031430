import type { Insertable, Selectable } from 'kysely';

/** A stored guardrail (issue 7); `checks` and `actions` are JSON text (migration 0004). */
export interface GuardrailsTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  slug: string;
  checks: string;
  actions: string;
  created_at: number;
  updated_at: number;
}

/** A guardrail row as read from the store. */
export type GuardrailRow = Selectable<GuardrailsTable>;

/** A guardrail row as written to the store. */
export type NewGuardrailRow = Insertable<GuardrailsTable>;

declare module '../../infra/store/schema.js' {
  /** The guardrails slice's tables in the assembled database type. */
  interface Database {
    guardrails: GuardrailsTable;
  }
}
