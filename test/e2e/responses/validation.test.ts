import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway } from '../../helpers/gateway.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic/server.js';

/** Every body rule of POST /v1/responses and the query rules of GET; each refused with 400 before any upstream call. */
describe('Responses API validation (400 in the decisions.md error shape)', () => {
  let fake: FakeAnthropic;
  let gw: Awaited<ReturnType<typeof startGateway>>;
  let headers: Record<string, string>;
  let storedId: string;

  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: 'k' });
    gw = await startGateway();
    headers = { 'x-gateway-config': JSON.stringify({ provider: 'anthropic', api_key: 'k', custom_host: fake.url }) };
    const ok = await gw.fetch('/v1/responses', { method: 'POST', headers, body: JSON.stringify({ model: 'claude-x', input: 'keep me' }) });
    storedId = ((await ok.json()) as { id: string }).id;
    fake.reset();
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  const post = (body: unknown) => gw.fetch('/v1/responses', { method: 'POST', headers, body: JSON.stringify(body) });
  const long = (n: number) => 'x'.repeat(n);
  const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));

  const cases: Array<[string, Record<string, unknown>, string | RegExp]> = [
    ['input missing', { model: 'm' }, /input/],
    ['input of the wrong type', { model: 'm', input: 42 }, /input/],
    ['empty input list', { model: 'm', input: [] }, /input/],
    ['temperature above 2', { model: 'm', input: 'x', temperature: 2.1 }, /temperature/],
    ['temperature below 0', { model: 'm', input: 'x', temperature: -0.1 }, /temperature/],
    ['top_p above 1', { model: 'm', input: 'x', top_p: 1.5 }, /top_p/],
    ['top_p below 0', { model: 'm', input: 'x', top_p: -1 }, /top_p/],
    ['max_output_tokens below 16', { model: 'm', input: 'x', max_output_tokens: 15 }, /max_output_tokens/],
    ['max_output_tokens not an integer', { model: 'm', input: 'x', max_output_tokens: 20.5 }, /max_output_tokens/],
    ['truncation unknown', { model: 'm', input: 'x', truncation: 'sometimes' }, /truncation/],
    ['store not boolean', { model: 'm', input: 'x', store: 'yes' }, /store/],
    ['stream not boolean', { model: 'm', input: 'x', stream: 'yes' }, /stream/],
    ['parallel_tool_calls not boolean', { model: 'm', input: 'x', parallel_tool_calls: 1 }, /parallel_tool_calls/],
    ['tool_choice unknown', { model: 'm', input: 'x', tool_choice: 'sometimes' }, /tool_choice/],
    ['tool_choice function without name', { model: 'm', input: 'x', tool_choice: { type: 'function' } }, /tool_choice/],
    ['text.format type unknown', { model: 'm', input: 'x', text: { format: { type: 'yaml' } } }, /text/],
    [
      'text.format json_schema without schema',
      { model: 'm', input: 'x', text: { format: { type: 'json_schema', name: 'n' } } },
      /text\.format/,
    ],
    ['tool without type', { model: 'm', input: 'x', tools: [{ name: 'f' }] }, /tools/],
    ['function tool without name', { model: 'm', input: 'x', tools: [{ type: 'function' }] }, /tools\[0\]\.name/],
    ['function tool with a bad name', { model: 'm', input: 'x', tools: [{ type: 'function', name: 'has space' }] }, /tools\[0\]\.name/],
    ['metadata with 17 pairs', { model: 'm', input: 'x', metadata: many(17) }, /metadata/],
    ['metadata key over 64 characters', { model: 'm', input: 'x', metadata: { [long(65)]: 'v' } }, /metadata/],
    ['metadata value over 512 characters', { model: 'm', input: 'x', metadata: { k: long(513) } }, /metadata\.k/],
    ['metadata value not a string', { model: 'm', input: 'x', metadata: { k: 1 } }, /metadata\.k/],
    ['user not a string', { model: 'm', input: 'x', user: 5 }, /user/],
    ['instructions not a string', { model: 'm', input: 'x', instructions: 5 }, /instructions/],
    ['previous_response_id unknown', { model: 'm', input: 'x', previous_response_id: 'resp_nope' }, /previous_response_id|resp_nope/],
    [
      'a forced hosted tool on a provider without a native Responses API',
      { model: 'm', input: 'x', tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }], tool_choice: { type: 'file_search' } },
      /tool_choice/,
    ],
    ['unsupported input item type over chat', { model: 'm', input: [{ type: 'item_reference', id: 'msg_1' }] }, /input\[0\]/],
    ['input message with an unknown role', { model: 'm', input: [{ role: 'robot', content: 'hi' }] }, /input\[0\]\.role/],
    [
      'image by file_id over chat',
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] },
      /input\[0\]\.content\[0\]/,
    ],
  ];

  it.each(cases)('%s → 400', async (_name, body, mention) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    const err = ((await res.json()) as { error: { type: string; message: string; param: string | null } }).error;
    expect(err.type).toBe('invalid_request_error');
    expect(typeof err.message).toBe('string');
    expect(`${err.param ?? ''} ${err.message}`).toMatch(mention);
    expect(fake.requests).toHaveLength(0);
  });

  it('accepts the limits exactly (16 pairs, 64-character key, 512-character value, temperature 2, top_p 0)', async () => {
    const metadata = { ...many(15), [long(64)]: long(512) };
    const res = await post({ model: 'claude-x', input: 'edge', metadata, temperature: 2, top_p: 0, max_output_tokens: 16 });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { metadata: unknown }).metadata).toEqual(metadata);
    fake.reset();
  });

  it('GET with an include value the specification does not list → 400; allowed values → 200', async () => {
    const bad = await gw.fetch(`/v1/responses/${storedId}?include[]=reasoning.encrypted_content`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('include');
    for (const v of ['file_search_call.results', 'message.input_image.image_url', 'computer_call_output.output.image_url']) {
      const ok = await gw.fetch(`/v1/responses/${storedId}?include=${encodeURIComponent(v)}`);
      expect(ok.status).toBe(200);
    }
  });

  it('input_items: limit outside 1..100, unknown order or cursor → 400; unknown response → 404', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'order=sideways', 'after=msg_unknown', 'include[]=nope']) {
      const res = await gw.fetch(`/v1/responses/${storedId}/input_items?${q}`);
      expect(res.status, q).toBe(400);
    }
    const res = await gw.fetch('/v1/responses/resp_missing/input_items');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('needs a gateway key', async () => {
    const res = await gw.fetch(`/v1/responses/${storedId}`, { headers: { 'x-gateway-api-key': 'wrong' } });
    expect(res.status).toBe(401);
  });
});
