import { afterAll, beforeAll } from 'vitest';
import { startGateway, type TestGateway } from './gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai/server.js';

/** A gateway and a fake OpenAI host, set once the `beforeAll` of `gatewayWithFakeOpenAI` has run. */
export interface GatewayWithFakeOpenAI {
  readonly gw: TestGateway;
  readonly fake: FakeOpenAI;
}

/**
 * Starts a gateway (default settings) and a fake OpenAI host before the tests of the file or `describe`
 * block it is called in, and closes both after them. Read `gw` and `fake` inside the tests.
 */
export function gatewayWithFakeOpenAI(): GatewayWithFakeOpenAI {
  const env = {} as { gw: TestGateway; fake: FakeOpenAI };
  beforeAll(async () => {
    env.fake = await startFakeOpenAI();
    env.gw = await startGateway();
  });
  afterAll(async () => {
    await env.gw?.close();
    await env.fake?.close();
  });
  return env;
}
