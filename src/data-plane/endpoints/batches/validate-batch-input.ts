import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { isObject } from '../../../foundation/lib/json.js';
import { MAX_BODY_JSON_DEPTH, nestsDeeperThan } from '../../../foundation/lib/json-depth.js';
import type { BatchError } from '../../../foundation/spec/batches.js';

/** Most lines a batch may hold (OpenAI's limit). */
export const MAX_BATCH_LINES = 50_000;
/** Most errors reported in `errors.data`. */
const MAX_ERRORS = 100;

/** One valid input line. */
export interface BatchInputLine {
  line_no: number;
  custom_id: string;
  body: string;
}

/**
 * Reads a batch input file (JSONL) line by line and checks each request: `custom_id` (a unique
 * non-empty string), `method` (`POST`), `url` (the batch's endpoint), `body` (an object, not streamed).
 * Valid lines are handed to `onLines` in groups as they are read (nothing holds the whole file);
 * errors carry their 1-based `line`. Blank lines are skipped.
 * @see https://platform.openai.com/docs/guides/batch
 */
export async function validateBatchInput(
  input: Readable,
  endpoint: string,
  onLines: (lines: BatchInputLine[]) => Promise<void>,
): Promise<{ total: number; errors: BatchError[] }> {
  const errors: BatchError[] = [];
  const seen = new Set<string>();
  let group: BatchInputLine[] = [];
  let lineNo = 0;
  let total = 0;
  const fail = (code: string, message: string, param: string | null) => {
    if (errors.length < MAX_ERRORS) errors.push({ code, message, param, line: lineNo });
  };
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    lineNo++;
    if (text.trim() === '') continue;
    total++;
    if (total > MAX_BATCH_LINES) {
      fail('too_many_requests', `A batch may hold at most ${MAX_BATCH_LINES} requests.`, null);
      break;
    }
    // The limit every JSON body of the gateway has: the line's body is serialised below, and would overflow the stack.
    if (nestsDeeperThan(text, MAX_BODY_JSON_DEPTH)) {
      fail('invalid_json_line', `This line is nested more than ${MAX_BODY_JSON_DEPTH} levels deep.`, null);
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      fail('invalid_json_line', 'This line is not valid JSON.', null);
      continue;
    }
    if (!isObject(parsed)) {
      fail('invalid_json_line', 'Each line must be a JSON object.', null);
      continue;
    }
    const { custom_id, method, url, body } = parsed;
    if (typeof custom_id !== 'string' || custom_id.length === 0 || custom_id.length > 512) {
      fail('invalid_request', 'custom_id must be a non-empty string of at most 512 characters.', 'custom_id');
      continue;
    }
    if (seen.has(custom_id)) {
      fail('duplicate_custom_id', `The custom_id '${custom_id}' appears more than once.`, 'custom_id');
      continue;
    }
    seen.add(custom_id);
    if (method !== 'POST') {
      fail('invalid_request', "method must be 'POST'.", 'method');
      continue;
    }
    if (url !== endpoint) {
      fail('mismatched_url', `url must be the batch's endpoint '${endpoint}'.`, 'url');
      continue;
    }
    if (!isObject(body)) {
      fail('invalid_request', 'body must be a JSON object.', 'body');
      continue;
    }
    if (body.stream === true) {
      fail('invalid_request', 'Batched requests cannot be streamed.', 'body.stream');
      continue;
    }
    if (errors.length > 0) continue;
    group.push({ line_no: lineNo, custom_id, body: JSON.stringify(body) });
    if (group.length >= 200) {
      await onLines(group);
      group = [];
    }
  }
  if (errors.length === 0 && group.length > 0) await onLines(group);
  if (total === 0 && errors.length === 0)
    errors.push({ code: 'empty_file', message: 'The input file holds no requests.', param: 'input_file_id', line: null });
  return { total, errors };
}
