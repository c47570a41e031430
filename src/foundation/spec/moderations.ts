/**
 * Moderation in the common schema (`POST /v1/moderations`).
 * @see https://platform.openai.com/docs/api-reference/moderations
 */
export interface ModerationRequest {
  input: string;
  model?: ModerationModel;
  [key: string]: unknown;
}

/** The models the specification names; `text-moderation-latest` is the default. */
export const MODERATION_MODELS = ['text-moderation-stable', 'text-moderation-latest'] as const;
export type ModerationModel = (typeof MODERATION_MODELS)[number];
export const DEFAULT_MODERATION_MODEL: ModerationModel = 'text-moderation-latest';

/** The eleven categories of the specification's "Moderation result object", keys of both maps. */
export const MODERATION_CATEGORIES = [
  'hate',
  'hate/threatening',
  'harassment',
  'harassment/threatening',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
] as const;
export type ModerationCategory = (typeof MODERATION_CATEGORIES)[number];

/** One moderated input. */
export interface ModerationResult {
  flagged: boolean;
  categories: Record<ModerationCategory, boolean>;
  category_scores: Record<ModerationCategory, number>;
}

/** The specification's "Moderation result object". */
export interface ModerationResponse {
  id: string;
  model: string;
  results: ModerationResult[];
}
