/**
 * Moderation in the common schema (`POST /v1/moderations`).
 * @see https://platform.openai.com/docs/api-reference/moderations
 */
export interface ModerationRequest {
  input: ModerationInput;
  model?: string;
  [key: string]: unknown;
}

/** One part of a multimodal moderation input. */
export type ModerationInputPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

/** A string, an array of strings, or an array of text and image parts. */
export type ModerationInput = string | string[] | ModerationInputPart[];

/**
 * The models OpenAI documents; `omni-moderation-latest` is the default. Any other model name passes
 * through to the target (forward compatibility).
 */
export const MODERATION_MODELS = [
  'omni-moderation-latest',
  'omni-moderation-2024-09-26',
  'text-moderation-latest',
  'text-moderation-stable',
] as const;
export type ModerationModel = (typeof MODERATION_MODELS)[number];
export const DEFAULT_MODERATION_MODEL: ModerationModel = 'omni-moderation-latest';

/** The thirteen categories of the specification's "Moderation result object", keys of the three maps. */
export const MODERATION_CATEGORIES = [
  'hate',
  'hate/threatening',
  'harassment',
  'harassment/threatening',
  'illicit',
  'illicit/violent',
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
  /** Which input types (`text`, `image`) each category's score was computed from. */
  category_applied_input_types: Record<ModerationCategory, Array<'text' | 'image'>>;
}

/** The specification's "Moderation result object". */
export interface ModerationResponse {
  id: string;
  model: string;
  results: ModerationResult[];
}
