import { describe, expect, it } from 'vitest';
import { createOpenAIResponsesStreamMapper } from './openai-responses-stream.js';

const frame = (type: string, data: Record<string, unknown> = {}) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: 0, ...data })}\n\n`;
const bytes = (s: string) => new TextEncoder().encode(s);

describe('createOpenAIResponsesStreamMapper', () => {
  it('yields events in any byte split and accepts a stream ended by response.completed (no [DONE])', () => {
    const m = createOpenAIResponsesStreamMapper('openai');
    const text =
      frame('response.created', { response: { id: 'resp_1' } }) +
      frame('response.output_text.delta', { delta: 'hi' }) +
      frame('response.completed', { response: { id: 'resp_1' } });
    const out = [...m.push(bytes(text.slice(0, 50))), ...m.push(bytes(text.slice(50))), ...m.end()];
    expect(out.map((e) => e.type)).toEqual(['response.created', 'response.output_text.delta', 'response.completed']);
  });

  it('throws on an error event and on a stream without a terminal event', () => {
    const m = createOpenAIResponsesStreamMapper('openai');
    expect(() =>
      m.push(
        bytes(
          `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'server_error', message: 'bad', param: null, sequence_number: 3 })}\n\n`,
        ),
      ),
    ).toThrow(expect.objectContaining({ message: 'bad', provider: 'openai', status: 502, publicCode: 'server_error' }));
    const cut = createOpenAIResponsesStreamMapper('openai');
    cut.push(bytes(frame('response.created', { response: {} })));
    expect(() => cut.end()).toThrow(expect.objectContaining({ status: 502 }));
  });

  it('response.incomplete and response.failed end a stream too', () => {
    for (const t of ['response.incomplete', 'response.failed']) {
      const m = createOpenAIResponsesStreamMapper('openai');
      m.push(bytes(frame(t, { response: {} })));
      expect(() => m.end()).not.toThrow();
    }
  });
});
