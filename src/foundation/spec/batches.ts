/**
 * File, batch and fine-tuning objects of the common (OpenAI) schema.
 * @see https://platform.openai.com/docs/api-reference/files/object
 * @see https://platform.openai.com/docs/api-reference/batch/object
 */

/** Purposes a file can be uploaded (or produced) for. */
export const FILE_PURPOSES = [
  'assistants',
  'assistants_output',
  'batch',
  'batch_output',
  'fine-tune',
  'fine-tune-results',
  'vision',
  'user_data',
  'evals',
] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];

/** The file object. `status` is deprecated but still sent; `status_details` (deprecated, a string) only when there are details. */
export interface FileObject {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  filename: string;
  purpose: FilePurpose;
  status: 'uploaded' | 'processed' | 'error';
  status_details?: string;
}

/** States of a batch. */
export type BatchStatus = 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled';

/** Endpoints a batch can target. */
export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/completions', '/v1/embeddings'] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

/** One validation error of a batch (`line` is the 1-based input line). */
export interface BatchError {
  code: string;
  message: string;
  param: string | null;
  line: number | null;
}

/** The batch object; every `*_at` is Unix seconds or null. */
export interface BatchObject {
  id: string;
  object: 'batch';
  endpoint: string;
  errors: { object: 'list'; data: BatchError[] } | null;
  input_file_id: string;
  completion_window: string;
  status: BatchStatus;
  output_file_id: string | null;
  error_file_id: string | null;
  created_at: number;
  in_progress_at: number | null;
  expires_at: number | null;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  cancelling_at: number | null;
  cancelled_at: number | null;
  request_counts: { total: number; completed: number; failed: number };
  metadata: Record<string, string> | null;
}

/** One line of a batch output or error file. */
export interface BatchOutputLine {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string; body: unknown } | null;
  error: { code: string; message: string } | null;
}

/** The cursor-paged list envelope of OpenAI-style resources. */
export interface CursorList<T> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}
