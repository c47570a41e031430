/**
 * OpenAI's `usage` block read from its bytes when it has exactly the form OpenAI writes, without
 * `JSON.parse`: the members in OpenAI's order, no spaces, whole numbers. Every chat answer and usage chunk
 * of an OpenAI-compatible upstream carries one, and the metrics and the price read it on every request.
 * Under load the parse of its ~250 bytes (keys looked up in V8's string table, a new map per object) cost
 * ~2.3–3.5 µs per request in CPU profiles, this walk ~1 µs (bench/README.md "Session 23"). Anything else
 * (another layout, spaces, a member more or less, a number that is not a plain whole number) is left to
 * `JSON.parse`: `undefined` means "not this form", never "no usage".
 */

/** The text between the numbers of each known layout, in order; the last piece ends the object. */
const LAYOUTS: ReadonlyArray<ReadonlyArray<Buffer>> = [
  // Chat completions since late 2024: the token details with audio and predictions.
  [
    '{"prompt_tokens":',
    ',"completion_tokens":',
    ',"total_tokens":',
    ',"prompt_tokens_details":{"cached_tokens":',
    ',"audio_tokens":',
    '},"completion_tokens_details":{"reasoning_tokens":',
    ',"audio_tokens":',
    ',"accepted_prediction_tokens":',
    ',"rejected_prediction_tokens":',
    '}}',
  ].map((s) => Buffer.from(s)),
  // The three counts alone (older answers, embeddings, many OpenAI-compatible servers).
  ['{"prompt_tokens":', ',"completion_tokens":', ',"total_tokens":', '}'].map((s) => Buffer.from(s)),
];

/** The numbers read by the last call (9 at most: the longest layout's). */
const numbers = new Float64Array(9);

/**
 * The usage object of `bytes[start, end)` when those bytes are one of OpenAI's usage layouts exactly;
 * equal to what `JSON.parse` gives for them (same members, same order, same numbers). Undefined otherwise.
 */
export function readCompactUsage(bytes: Uint8Array, start: number, end: number): Record<string, unknown> | undefined {
  if (bytes[start] !== 0x7b || bytes[start + 2] !== 0x70) return undefined;
  if (matches(bytes, start, end, LAYOUTS[0]!)) {
    const n = numbers;
    return {
      prompt_tokens: n[0],
      completion_tokens: n[1],
      total_tokens: n[2],
      prompt_tokens_details: { cached_tokens: n[3], audio_tokens: n[4] },
      completion_tokens_details: {
        reasoning_tokens: n[5],
        audio_tokens: n[6],
        accepted_prediction_tokens: n[7],
        rejected_prediction_tokens: n[8],
      },
    };
  }
  if (matches(bytes, start, end, LAYOUTS[1]!))
    return { prompt_tokens: numbers[0], completion_tokens: numbers[1], total_tokens: numbers[2] };
  return undefined;
}

/** Whether `bytes[start, end)` is the layout's pieces with a whole number between each two; the numbers go to `numbers`. */
function matches(bytes: Uint8Array, start: number, end: number, layout: ReadonlyArray<Buffer>): boolean {
  let i = start;
  const last = layout.length - 1;
  for (let p = 0; p <= last; p++) {
    const piece = layout[p]!;
    const n = piece.length;
    if (i + n > end) return false;
    for (let j = 0; j < n; j++) if (bytes[i + j] !== piece[j]) return false;
    i += n;
    if (p === last) return i === end;
    // A JSON whole number: no sign, no leading zero, at most 15 digits (exact as a double).
    const first = i;
    let value = 0;
    for (let c = bytes[i]!; i < end && c >= 0x30 && c <= 0x39; c = bytes[++i]!) value = value * 10 + (c - 0x30);
    const digits = i - first;
    if (digits === 0 || digits > 15 || (digits > 1 && bytes[first] === 0x30)) return false;
    numbers[p] = value;
  }
  return false;
}
