import type { Insertable, Selectable } from 'kysely';

/** A prompt template or partial (issue 6); `kind` is `prompt` or `partial`. */
export interface PromptsTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  kind: string;
  name: string;
  slug: string;
  published_version: number;
  latest_version: number;
  virtual_key: string | null;
  provider: string | null;
  created_at: number;
  updated_at: number;
}

/** An immutable version of a prompt or partial; `parameters` and `metadata` are JSON text. */
export interface PromptVersionsTable {
  prompt_id: string;
  version: number;
  template: string;
  parameters: string;
  model: string | null;
  metadata: string;
  description: string | null;
  created_at: number;
}

/** A prompt row as read from the store. */
export type PromptRow = Selectable<PromptsTable>;

/** A prompt version row as read from the store. */
export type PromptVersionRow = Selectable<PromptVersionsTable>;

/** A prompt version row as written to the store. */
export type NewPromptVersionRow = Insertable<PromptVersionsTable>;

declare module '../../infra/store/schema.js' {
  /** This slice's tables in the store's assembled database type. */
  interface Database {
    prompts: PromptsTable;
    prompt_versions: PromptVersionsTable;
  }
}
