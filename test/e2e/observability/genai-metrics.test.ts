import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

/** `/metrics` carries the GenAI histograms by operation, provider and model (semantic-convention names). */
describe('GenAI metrics', () => {
  let gw: TestGateway;
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-fake' });
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('token usage by type and operation duration (with the error type of a failure) per provider and model', async () => {
    const ok = gw.openai({ 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }) });
    const answer = await ok.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'count my tokens please' }],
    });
    const bad = gw.openai({
      'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-wrong-00000000', custom_host: fake.url }),
    });
    await expect(bad.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow();
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    const line = (prefix: string) => text.split('\n').find((l) => l.startsWith(prefix));
    const labels = 'gen_ai_operation_name="chat",gen_ai_provider_name="openai",gen_ai_request_model="gpt-4o-mini"';
    expect(line(`gen_ai_client_token_usage_sum{${labels},gen_ai_token_type="input"}`)).toBe(
      `gen_ai_client_token_usage_sum{${labels},gen_ai_token_type="input"} ${answer.usage!.prompt_tokens}`,
    );
    expect(line(`gen_ai_client_token_usage_sum{${labels},gen_ai_token_type="output"}`)).toBe(
      `gen_ai_client_token_usage_sum{${labels},gen_ai_token_type="output"} ${answer.usage!.completion_tokens}`,
    );
    expect(line(`gen_ai_client_operation_duration_seconds_count{${labels},error_type="none"}`)).toMatch(/ 1$/);
    expect(text).toMatch(
      /gen_ai_client_operation_duration_seconds_count\{gen_ai_operation_name="chat",gen_ai_provider_name="openai",gen_ai_request_model="[^"]+",error_type="provider_authentication_error"\} 1/,
    );
  });

  it("counts the Responses API's input and output tokens (its usage names them input_tokens and output_tokens)", async () => {
    const client = gw.openai({ 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-fake', custom_host: fake.url }) });
    const answer = await client.responses.create({ model: 'gpt-4.1-mini', input: 'count these tokens too' });
    expect(answer.usage!.input_tokens).toBeGreaterThan(0);
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    const line = (prefix: string) => text.split('\n').find((l) => l.startsWith(prefix));
    const labels = 'gen_ai_operation_name="chat",gen_ai_provider_name="openai",gen_ai_request_model="gpt-4.1-mini"';
    expect(line(`gen_ai_client_token_usage_sum{${labels},gen_ai_token_type="input"}`)).toBe(
      `gen_ai_client_token_usage_sum{${labels},gen_ai_token_type="input"} ${answer.usage!.input_tokens}`,
    );
    expect(line(`gen_ai_client_token_usage_sum{${labels},gen_ai_token_type="output"}`)).toBe(
      `gen_ai_client_token_usage_sum{${labels},gen_ai_token_type="output"} ${answer.usage!.output_tokens}`,
    );
  });
});
