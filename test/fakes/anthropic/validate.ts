import { createHash } from 'node:crypto';

/** The signature the fake gives a thinking text (and expects back). */
export function fakeSignature(thinking: string): string {
  return 'sig_' + createHash('sha256').update(thinking).digest('hex').slice(0, 24);
}

/** A 400 `invalid_request_error` the fake answers with; the message names the field as Anthropic does. */
export class FakeBadRequest extends Error {}

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

function bad(message: string): never {
  throw new FakeBadRequest(message);
}

/**
 * The request checks the real API makes that a gateway mapping could get wrong: required fields, roles,
 * non-empty text, image sources, tool_use / tool_result pairing, thinking budget and signatures.
 * @see https://docs.anthropic.com/en/api/messages
 */
export function validateMessagesBody(body: any): void {
  if (typeof body !== 'object' || body === null) bad('body: Input should be an object');
  if (typeof body.model !== 'string' || !body.model) bad('model: Field required');
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) bad('max_tokens: Field required');
  if (!Array.isArray(body.messages) || body.messages.length === 0) bad('messages: Field required');
  if (body.system !== undefined && typeof body.system !== 'string') {
    if (!Array.isArray(body.system) || body.system.some((b: any) => b?.type !== 'text' || typeof b.text !== 'string'))
      bad('system: Input should be a valid string or a list of text blocks');
  }
  if (
    body.stop_sequences !== undefined &&
    !(Array.isArray(body.stop_sequences) && body.stop_sequences.every((s: unknown) => typeof s === 'string'))
  ) {
    bad('stop_sequences: Input should be a valid list of strings');
  }
  if (body.thinking?.type === 'enabled') {
    const budget = body.thinking.budget_tokens;
    if (!Number.isInteger(budget) || budget < 1024) bad('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    if (budget >= body.max_tokens) bad('`max_tokens` must be greater than `thinking.budget_tokens`.');
  }
  if (body.tool_choice !== undefined && !['auto', 'any', 'tool', 'none'].includes(body.tool_choice?.type))
    bad('tool_choice: Input tag does not match any of the expected tags');
  for (const [i, tool] of (body.tools ?? []).entries()) {
    if (typeof tool?.name !== 'string' || typeof tool.input_schema !== 'object') bad(`tools.${i}.custom.input_schema: Field required`);
  }
  let pendingToolUse: string[] = [];
  body.messages.forEach((m: any, i: number) => {
    if (m?.role === 'system') {
      // A mid-conversation system message (the API's per-turn instructions): text blocks only, no pairing effect.
      const parts: any[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content : [];
      if (!parts.length || parts.some((b) => b?.type !== 'text' || typeof b.text !== 'string'))
        bad(`messages.${i}.content: a system message takes text blocks only`);
      return;
    }
    if (m?.role !== 'user' && m?.role !== 'assistant') bad(`messages.${i}.role: Input should be 'user', 'assistant' or 'system'`);
    const blocks: any[] =
      typeof m.content === 'string'
        ? [{ type: 'text', text: m.content }]
        : Array.isArray(m.content)
          ? m.content
          : bad(`messages.${i}.content: Field required`);
    if (blocks.length === 0 && !(i === body.messages.length - 1 && m.role === 'assistant'))
      bad(`messages.${i}: all messages must have non-empty content`);
    const results = blocks.filter((b) => b?.type === 'tool_result').map((b) => b.tool_use_id);
    if (m.role === 'user') {
      for (const id of results)
        if (!pendingToolUse.includes(id))
          bad(
            `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
      const missing = pendingToolUse.filter((id) => !results.includes(id));
      if (missing.length)
        bad(`messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}`);
    } else if (pendingToolUse.length)
      bad(`messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${pendingToolUse.join(', ')}`);
    pendingToolUse = [];
    blocks.forEach((b, j) => {
      const at = `messages.${i}.content.${j}`;
      switch (b?.type) {
        case 'text':
          if (typeof b.text !== 'string' || b.text === '') bad('messages: text content blocks must be non-empty');
          break;
        case 'image':
          if (b.source?.type === 'base64') {
            if (!IMAGE_TYPES.has(b.source.media_type))
              bad(`${at}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
            if (typeof b.source.data !== 'string' || !b.source.data) bad(`${at}.image.source.base64.data: Field required`);
          } else if (b.source?.type === 'url') {
            if (!/^https?:\/\//.test(b.source.url ?? '')) bad(`${at}.image.source.url.url: Input should be a valid URL`);
          } else bad(`${at}.image.source: Input tag does not match any of the expected tags`);
          break;
        case 'tool_use':
          if (m.role !== 'assistant') bad(`${at}: tool_use blocks are only allowed in assistant messages`);
          if (
            typeof b.id !== 'string' ||
            typeof b.name !== 'string' ||
            typeof b.input !== 'object' ||
            b.input === null ||
            Array.isArray(b.input)
          )
            bad(`${at}.tool_use.input: Input should be a valid dictionary`);
          pendingToolUse.push(b.id);
          break;
        case 'tool_result':
          if (m.role !== 'user') bad(`${at}: tool_result blocks are only allowed in user messages`);
          break;
        case 'thinking':
          if (m.role !== 'assistant') bad(`${at}: thinking blocks are only allowed in assistant messages`);
          if (typeof b.signature !== 'string') bad(`${at}.thinking.signature: Field required`);
          if (b.signature !== fakeSignature(b.thinking)) bad(`${at}: Invalid \`signature\` in \`thinking\` block`);
          break;
        case 'redacted_thinking':
        case 'document':
          break;
        default:
          bad(`${at}: Input tag '${String(b?.type)}' found using 'type' does not match any of the expected tags`);
      }
    });
  });
}
