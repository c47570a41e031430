/**
 * Legacy text completions in the common schema.
 * @see https://platform.openai.com/docs/api-reference/completions
 */
import type { Usage } from './chat.js';

export interface CompletionRequest {
  model: string;
  prompt: string | string[] | number[] | number[][];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  max_tokens?: number;
  [key: string]: unknown;
}

export interface TextCompletion {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  system_fingerprint?: string;
  choices: Array<{ index: number; text: string; finish_reason: string | null; logprobs: unknown | null }>;
  usage?: Usage;
}
