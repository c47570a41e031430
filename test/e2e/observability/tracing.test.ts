import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeAgent } from '../../fakes/a2a/agent-server.js';
import { startFakeMcp } from '../../fakes/mcp/server.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { FakeOtlpReceiver, SPAN_KIND } from '../../fakes/otlp/server.js';

/**
 * OpenTelemetry over OTLP/HTTP into an in-process receiver: the span tree of a request (SERVER →
 * routing → one CLIENT span per provider attempt, the failed one included), the GenAI attributes, an
 * incoming `traceparent` joined, and no message content unless opted in.
 */
describe('OpenTelemetry traces', () => {
  let fake: FakeOpenAI;
  let receiver: FakeOtlpReceiver;
  const gateways: TestGateway[] = [];
  const start = async (env: Record<string, string>) => {
    const gw = await startGateway({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50', ...env } });
    gateways.push(gw);
    return gw;
  };
  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
    receiver = await new FakeOtlpReceiver().start();
  });
  afterAll(async () => {
    for (const gw of gateways) await gw.close();
    await fake?.close();
    await receiver?.close();
  });

  const config = () =>
    JSON.stringify({
      strategy: { mode: 'fallback' },
      targets: [
        { provider: 'openai', api_key: 'sk-wrong-key-000000', custom_host: fake.url },
        { provider: 'openai', api_key: 'sk-fake', custom_host: fake.url },
      ],
    });
  const chat = (gw: TestGateway, headers: Record<string, string>) =>
    gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': config(), ...headers },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'a secret plan' }], max_tokens: 20 }),
    });

  it.each([
    ['http/protobuf (the default)', {}, 'application/x-protobuf', '4bf92f3577b34da6a3ce929d0e0e4736'],
    ['http/json', { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, 'application/json', '5cf92f3577b34da6a3ce929d0e0e4737'],
  ])(
    'over %s, a request joins the incoming traceparent: SERVER, routing, and a CLIENT span per attempt with the GenAI attributes',
    async (_, env, contentType, traceId) => {
      const gw = await start(env);
      const parent = '00f067aa0ba902b7';
      const res = await chat(gw, { traceparent: `00-${traceId}-${parent}-01` });
      expect(res.status).toBe(200);
      const answer = (await res.json()) as {
        id: string;
        model: string;
        choices: Array<{ finish_reason: string }>;
        usage: { prompt_tokens: number; completion_tokens: number };
      };
      expect(res.headers.get('x-gateway-trace-id')).toBe(traceId);
      const spans = await receiver.trace(traceId, 4);
      // Per span, not per export since the test began: the gateway of the other case may still export into the same receiver.
      expect(new Set(spans.map((s) => s.contentType))).toEqual(new Set([contentType]));
      const server = spans.find((s) => s.kind === SPAN_KIND.SERVER)!;
      expect(server).toMatchObject({ name: 'POST /v1/chat/completions', parentSpanId: parent });
      expect(server.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200 });
      expect(server.resource['service.name']).toBe('ai-gateway');
      const routing = spans.find((s) => s.name === 'routing')!;
      expect(routing).toMatchObject({ kind: SPAN_KIND.INTERNAL, parentSpanId: server.spanId });
      expect(routing.attributes).toMatchObject({ 'gateway.target.path': 'config.targets[1]', 'gateway.attempts': 2 });
      const clients = spans.filter((s) => s.kind === SPAN_KIND.CLIENT);
      expect(clients).toHaveLength(2);
      for (const c of clients) {
        expect(c.name).toBe('chat gpt-4o-mini');
        expect(c.parentSpanId).toBe(routing.spanId);
        expect(c.attributes).toMatchObject({
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.request.max_tokens': 20,
        });
      }
      const failed = clients.find((c) => c.attributes['gateway.target.path'] === 'config.targets[0]')!;
      expect(failed.attributes).toMatchObject({ 'http.response.status_code': 401, 'error.type': 'provider_authentication_error' });
      expect(failed.status.code).toBe(2);
      const ok = clients.find((c) => c.attributes['gateway.target.path'] === 'config.targets[1]')!;
      expect(ok.attributes).toMatchObject({
        'gen_ai.response.id': answer.id,
        'gen_ai.response.model': answer.model,
        'gen_ai.response.finish_reasons': [answer.choices[0].finish_reason],
        'gen_ai.usage.input_tokens': answer.usage.prompt_tokens,
        'gen_ai.usage.output_tokens': answer.usage.completion_tokens,
      });
      expect(JSON.stringify(spans)).not.toContain('a secret plan');
      expect(JSON.stringify(spans)).not.toContain('sk-fake');
      expect(JSON.stringify(spans)).not.toContain('sk-wrong-key-000000');

      // Without a traceparent the request starts its own trace, named by x-gateway-trace-id.
      const alone = await chat(gw, {});
      const own = alone.headers.get('x-gateway-trace-id')!;
      expect(own).toMatch(/^[0-9a-f]{32}$/);
      const ownSpans = await receiver.trace(own, 4);
      expect(ownSpans.find((s) => s.kind === SPAN_KIND.SERVER)!.parentSpanId).toBe('');
      const logs = await gw.fetch(`/v1/logs?trace_id=${own}`);
      expect(((await logs.json()) as { total: number }).total).toBe(1);

      // SERVER spans are named by method and route pattern; url.path is the path without its query, also for a path no route matches.
      const byPath = (path: string) => receiver.spans.find((s) => s.kind === SPAN_KIND.SERVER && s.attributes['url.path'] === path);
      expect((await gw.fetch('/v1/no-such-thing?x=1')).status).toBe(404);
      for (let i = 0; i < 200 && !(byPath('/v1/logs') && byPath('/v1/no-such-thing')); i++) await new Promise((r) => setTimeout(r, 25));
      expect(byPath('/v1/logs')).toMatchObject({
        name: 'GET /v1/logs',
        attributes: { 'http.route': '/v1/logs', 'http.request.method': 'GET' },
      });
      expect(byPath('/v1/no-such-thing')).toMatchObject({
        name: 'GET /v1/no-such-thing',
        attributes: { 'http.route': '/v1/no-such-thing', 'http.response.status_code': 404 },
      });
    },
  );

  it("follows the sampler: a caller's unsampled traceparent and OTEL_TRACES_SAMPLER=always_off export nothing, the trace id is kept", async () => {
    const gw = await start({});
    const unsampledTrace = '6cf92f3577b34da6a3ce929d0e0e4738';
    const skipped = await chat(gw, { traceparent: `00-${unsampledTrace}-00f067aa0ba902b7-00` });
    expect(skipped.status).toBe(200);
    await skipped.json();
    expect(skipped.headers.get('x-gateway-trace-id')).toBe(unsampledTrace);
    // A sampled request after it: once its spans arrived, the unsampled one's would have too.
    const sampled = await chat(gw, {});
    await sampled.json();
    expect(await receiver.trace(sampled.headers.get('x-gateway-trace-id')!, 4)).toHaveLength(4);
    expect(receiver.spans.filter((s) => s.traceId === unsampledTrace)).toHaveLength(0);

    // The sampler is read from the gateway's environment when it starts.
    const off = await start({ OTEL_TRACES_SAMPLER: 'always_off' });
    const res = await chat(off, {});
    expect(res.status).toBe(200);
    await res.json();
    const own = res.headers.get('x-gateway-trace-id')!;
    expect(own).toMatch(/^[0-9a-f]{32}$/);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.spans.filter((s) => s.traceId === own)).toHaveLength(0);
  });

  it('parentbased_traceidratio with OTEL_TRACES_SAMPLER_ARG=0 exports only what a sampled caller asks for; OTEL_SDK_DISABLED=true exports nothing', async () => {
    const ratio = await start({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    const root = await chat(ratio, {});
    await root.json();
    const rootTrace = root.headers.get('x-gateway-trace-id')!;
    const joined = '4cf92f3577b34da6a3ce929d0e0e4737';
    const child = await chat(ratio, { traceparent: `00-${joined}-00f067aa0ba902b7-01` });
    await child.json();
    expect(await receiver.trace(joined, 4)).toHaveLength(4);
    expect(receiver.spans.filter((s) => s.traceId === rootTrace)).toHaveLength(0);

    const disabled = await start({ OTEL_SDK_DISABLED: 'true' });
    const res = await chat(disabled, { traceparent: '00-3cf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
    expect(res.status).toBe(200);
    await res.json();
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.spans.filter((s) => s.traceId === '3cf92f3577b34da6a3ce929d0e0e4736')).toHaveLength(0);
  });

  it('records message contents only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true; streamed usage lands on the CLIENT span', async () => {
    const gw = await start({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
    const res = await chat(gw, {});
    const traceId = res.headers.get('x-gateway-trace-id')!;
    await res.json();
    const ok = (await receiver.trace(traceId, 4)).find(
      (s) => s.kind === SPAN_KIND.CLIENT && s.attributes['http.response.status_code'] === 200,
    )!;
    expect(String(ok.attributes['gen_ai.input.messages'])).toContain('a secret plan');
    expect(ok.attributes['gen_ai.output.messages']).toBeDefined();

    const stream = await gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }) },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    });
    const streamTrace = stream.headers.get('x-gateway-trace-id')!;
    await stream.text();
    const client = (await receiver.trace(streamTrace, 3)).find((s) => s.kind === SPAN_KIND.CLIENT)!;
    expect(client.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': expect.any(Number),
      'gen_ai.usage.output_tokens': expect.any(Number),
      'gen_ai.response.finish_reasons': ['stop'],
    });

    // A passthrough stream whose client did not ask for usage: the span reads the first chunk, the finishing one
    // and the usage chunk the gateway asked for (and strips), without parsing the chunks between.
    const plain = await gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }) },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'tell me more words' }], stream: true }),
    });
    const plainTrace = plain.headers.get('x-gateway-trace-id')!;
    const text = await plain.text();
    expect(text).not.toMatch(/"usage":\{/);
    const first = JSON.parse(text.slice(text.indexOf('data: ') + 6, text.indexOf('\n')));
    const spanOf = (await receiver.trace(plainTrace, 3)).find((s) => s.kind === SPAN_KIND.CLIENT)!;
    expect(spanOf.attributes).toMatchObject({
      'gen_ai.response.id': first.id,
      'gen_ai.response.model': first.model,
      'gen_ai.usage.input_tokens': expect.any(Number),
      'gen_ai.usage.output_tokens': expect.any(Number),
      'gen_ai.response.finish_reasons': ['stop'],
    });
  });

  it("a 200 answer that is not JSON passes through as it came; its CLIENT span ends without the answer's attributes", async () => {
    const broken = '{"id":"chatcmpl-broken","choices":[{"message":';
    const upstream = createServer((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(broken));
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    try {
      const gw = await start({});
      const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
      const res = await gw.fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-any', custom_host: url }) },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(broken);
      const client = (await receiver.trace(res.headers.get('x-gateway-trace-id')!, 3)).find((s) => s.kind === SPAN_KIND.CLIENT)!;
      expect(client.attributes['http.response.status_code']).toBe(200);
      expect(client.attributes['gen_ai.response.id']).toBeUndefined();
    } finally {
      await new Promise((r) => upstream.close(r));
    }
  });

  it('a cache lookup span answers a HIT without a CLIENT span; guardrails get their own span', async () => {
    const gw = await start({});
    const cached = JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url, cache: { mode: 'simple' } });
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'cache me' }] });
    const first = await gw.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': cached }, body });
    await first.json();
    const miss = await receiver.trace(first.headers.get('x-gateway-trace-id')!, 4);
    expect(miss.find((s) => s.name === 'cache lookup')!.attributes['gateway.cache.status']).toBe('MISS');
    expect(miss.filter((s) => s.kind === SPAN_KIND.CLIENT)).toHaveLength(1);
    let hitTrace = '';
    for (let i = 0; i < 50 && hitTrace === ''; i++) {
      const again = await gw.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': cached }, body });
      await again.json();
      if (again.headers.get('x-gateway-cache-status') === 'HIT') hitTrace = again.headers.get('x-gateway-trace-id')!;
      else await new Promise((r) => setTimeout(r, 50));
    }
    const hit = await receiver.trace(hitTrace, 3);
    const lookup = hit.find((s) => s.name === 'cache lookup')!;
    expect(lookup).toMatchObject({ kind: SPAN_KIND.INTERNAL, parentSpanId: hit.find((s) => s.name === 'routing')!.spanId });
    expect(lookup.attributes['gateway.cache.status']).toBe('HIT');
    expect(hit.filter((s) => s.kind === SPAN_KIND.CLIENT)).toHaveLength(0);

    // Guardrails of a target run around its call (the request's own run before routing).
    const guarded = JSON.stringify({
      strategy: { mode: 'fallback' },
      targets: [
        {
          provider: 'openai',
          api_key: 'sk-fake',
          custom_host: fake.url,
          input_guardrails: [{ 'default.contains': { words: ['forbidden'], operator: 'none' }, deny: true }],
        },
      ],
    });
    const denied = await gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': guarded },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'a forbidden word' }] }),
    });
    expect(denied.status).toBe(446);
    const spans = await receiver.trace(denied.headers.get('x-gateway-trace-id')!, 3);
    const guard = spans.find((s) => s.name === 'guardrails')!;
    expect(guard.attributes).toMatchObject({ 'http.response.status_code': 446, 'error.type': 'guardrail_denied' });
    expect(spans.filter((s) => s.kind === SPAN_KIND.CLIENT)).toHaveLength(0);
  });

  it('an A2A call is an invoke_agent CLIENT span under the request, without the agent server headers', async () => {
    const agent = await startFakeAgent({ prefix: '/a2a', stepMs: 10 });
    try {
      const gw = await start({});
      const created = await gw.fetch('/v1/agent-servers', {
        method: 'POST',
        body: JSON.stringify({
          name: 'Echo agent',
          slug: 'echo-agent',
          url: agent.url,
          headers: { authorization: 'Bearer agent-upstream-secret-0123' },
        }),
      });
      expect(created.status).toBe(201);
      const res = await gw.fetch('/v1/agents/echo-agent', {
        method: 'POST',
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } },
        }),
      });
      expect(res.status).toBe(200);
      await res.json();
      const spans = await receiver.trace(res.headers.get('x-gateway-trace-id')!, 2);
      const server = spans.find((x) => x.kind === SPAN_KIND.SERVER)!;
      const call = spans.find((x) => x.kind === SPAN_KIND.CLIENT)!;
      expect(call).toMatchObject({ name: 'invoke_agent Echo agent', parentSpanId: server.spanId });
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'Echo agent',
        'rpc.method': 'message/send',
        'http.response.status_code': 200,
      });
      expect(JSON.stringify(spans)).not.toContain('agent-upstream-secret-0123');
    } finally {
      await agent.close();
    }
  });

  it('an MCP tools/call is an execute_tool CLIENT span under the request, without its arguments', async () => {
    const fakeMcp = await startFakeMcp();
    try {
      const gw = await start({});
      const integration = await gw.fetch('/v1/mcp-integrations', {
        method: 'POST',
        body: JSON.stringify({ name: 'Traced upstream', slug: 'traced-up', url: `${fakeMcp.url}/mcp`, auth_type: 'none' }),
      });
      expect(integration.status).toBe(201);
      expect(
        (
          await gw.fetch('/v1/mcp-servers', {
            method: 'POST',
            body: JSON.stringify({ name: 'Traced', slug: 'traced', mcp_integration_id: 'traced-up' }),
          })
        ).status,
      ).toBe(201);
      const traceIds: string[] = [];
      const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/mcp/traced/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${gw.adminKey}` } },
        fetch: async (input, init) => {
          const res = await fetch(input, init);
          const id = res.headers.get('x-gateway-trace-id');
          if (id) traceIds.push(id);
          return res;
        },
      });
      const client = new Client({ name: 'trace-client', version: '1.0.0' });
      await client.connect(transport);
      const before = traceIds.length;
      await client.callTool({ name: 'echo', arguments: { text: 'private-argument-value' } });
      const spans = await receiver.trace(traceIds[before]!, 2);
      const call = spans.find((x) => x.kind === SPAN_KIND.CLIENT)!;
      expect(call).toMatchObject({ name: 'execute_tool echo', parentSpanId: spans.find((x) => x.kind === SPAN_KIND.SERVER)!.spanId });
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'echo',
        'gateway.mcp.server': 'traced',
        'http.response.status_code': 200,
      });
      expect(JSON.stringify(spans)).not.toContain('private-argument-value');
      await client.close();
    } finally {
      await fakeMcp.close();
    }
  });
});
