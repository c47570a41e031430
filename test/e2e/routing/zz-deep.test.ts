import { afterAll, beforeAll, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
let gw: TestGateway; let fake: FakeOpenAI;
beforeAll(async () => { fake = await startFakeOpenAI(); gw = await startGateway(); });
afterAll(async () => { await gw?.close(); await fake?.close(); });
it('deep bodies', async () => {
  let deep = '1'; for (let i = 0; i < 100000; i++) deep = `{"a":${deep}}`;
  for (const extra of [{}, { cache: { mode: 'simple' } }, { input_guardrails: [{ 'default.contains': { words: ['x'], operator: 'any' } }] }, { input_guardrails: [{ 'default.jsonSchema': { schema: { type: 'object' } } }] }]) {
    const cfg = JSON.stringify({ provider: 'openai', api_key: 'k', custom_host: fake.url, ...extra });
    const body = `{"model":"m","messages":[{"role":"user","content":"hi"}],"metadata_x":${deep}}`;
    const res = await gw.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': cfg }, body });
    console.log('RESULT', JSON.stringify(extra).slice(0, 40), res.status, (await res.text()).slice(0, 150));
    const res2 = await gw.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': cfg }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: deep }] }) });
    console.log('RESULT2', JSON.stringify(extra).slice(0, 40), res2.status, (await res2.text()).slice(0, 150));
  }
}, 60000);
