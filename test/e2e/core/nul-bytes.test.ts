import { describe, expect, it } from 'vitest';
import { gatewayWithFakeOpenAI } from '../../helpers/gateway-with-fake-openai.js';

/** PostgreSQL text cannot hold U+0000: it is refused at the edge (400), or stored without NUL where it is legitimate. */
describe('NUL characters', () => {
  const env = gatewayWithFakeOpenAI();

  const expectRefused = async (res: Response, param: string) => {
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body).toEqual({
      error: { message: expect.stringContaining('NUL'), type: 'invalid_request_error', param, code: 'invalid_request' },
    });
  };

  it('in a path id → 400', async () => {
    await expectRefused(await env.gw.fetch('/v1/configs/abc%00def'), 'params.id');
    await expectRefused(await env.gw.fetch('/v1/api-keys/%00', { method: 'DELETE' }), 'params.id');
    await expectRefused(await env.gw.fetch('/v1/files/file-x%00y'), 'params.file_id');
    await expectRefused(await env.gw.fetch('/v1/responses/resp_%00'), 'params.response_id');
  });

  it('in a query value → 400', async () => {
    await expectRefused(await env.gw.fetch('/v1/logs?trace_id=a%00b'), 'querystring.trace_id');
    await expectRefused(await env.gw.fetch('/v1/configs?workspace_id=%00'), 'querystring.workspace_id');
  });

  it('in a string or key of an admin body → 400', async () => {
    const config = { strategy: { mode: 'single' }, targets: [{ provider: 'openai', api_key: 'sk' }] };
    await expectRefused(
      await env.gw.fetch('/v1/configs', { method: 'POST', body: JSON.stringify({ name: 'bad\u0000name', config }) }),
      'body.name',
    );
    await expectRefused(
      await env.gw.fetch('/v1/configs', {
        method: 'POST',
        body: JSON.stringify({ name: 'ok', config: { ...config, metadata: { 'k\u0000': 'v' } } }),
      }),
      'body.config.metadata.k\\u0000',
    );
    await expectRefused(
      await env.gw.fetch('/v1/prompts', { method: 'POST', body: JSON.stringify({ name: 'p\u0000', string: 'hello' }) }),
      'body.name',
    );
    await expectRefused(
      await env.gw.fetch('/v1/guardrails', {
        method: 'POST',
        body: JSON.stringify({ name: 'g', checks: [{ id: 'default.contains', parameters: { words: ['a\u0000'] } }] }),
      }),
      'body.checks.0.parameters.words.0',
    );
    // Nothing reached the store.
    const list = (await (await env.gw.fetch('/v1/configs')).json()) as { data: Array<{ name: string }> };
    expect(list.data.filter((c) => c.name.includes('\u0000') || c.name === 'ok')).toEqual([]);
  });

  it('inside a chat message (and the model name) still works, and its log row is written', async () => {
    const res = await env.gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: {
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': env.fake.url,
        authorization: 'Bearer sk',
        'x-gateway-trace-id': 'nul-chat',
      },
      body: JSON.stringify({ model: 'gpt-4o\u0000x', messages: [{ role: 'user', content: 'before\u0000after' }] }),
    });
    const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.choices[0].message.content).toContain('before\u0000after');
    const logs = (await (await env.gw.fetch('/v1/logs?trace_id=nul-chat')).json()) as { data: Array<{ model: string }> };
    expect(logs.data).toHaveLength(1);
    expect(logs.data[0].model).toMatch(/^gpt-4o(\u0000|\uFFFD)x$/);
    expect(env.gw.gateway.deps.logs.dropped).toBe(0);
  });
});
