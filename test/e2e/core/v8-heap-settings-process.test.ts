import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pool } from 'undici';
import { spawnGateway, type GatewayProcess } from '../../helpers/processes.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { operatorChosePretenuring } from '../../../src/server/v8-heap-settings.js';

/** V8's decisions to allocate a literal's objects straight in the old generation (`--trace-pretenuring-statistics`). */
function tenureDecisions(output: string): number {
  return output.split('\n').filter((line) => line.includes('pretenuring: AllocationSite') && line.endsWith('=> tenure')).length;
}

/**
 * `main.ts` turns V8's allocation-site pretenuring off before the gateway's modules are loaded (`v8-heap-settings.ts`):
 * with it, literals the request path shares with start-up are moved to the old generation and drag each
 * request's objects there. V8 prints each decision to tenure a literal with `--trace-pretenuring-statistics`.
 */
describe('V8 heap settings of the gateway process', () => {
  let fake: FakeOpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => {
    await fake?.close();
  });

  /** Starts a gateway with `nodeArgs`, optionally sends `requests` chat completions, stops it; returns its decisions to tenure. */
  async function decisionsOf(nodeArgs: string[], requests: number): Promise<number> {
    const gw: GatewayProcess = await spawnGateway(
      { GATEWAY_REQUEST_LOG: 'false' },
      { nodeArgs: ['--trace-pretenuring-statistics', ...nodeArgs] },
    );
    try {
      const pool = new Pool(gw.url, { connections: 16 });
      const headers = {
        'content-type': 'application/json',
        authorization: 'Bearer sk-test',
        'x-gateway-api-key': gw.adminKey,
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': fake.url,
      };
      const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] });
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < requests) {
            next++;
            const res = await pool.request({ path: '/v1/chat/completions', method: 'POST', headers, body });
            await res.body.text();
            expect(res.statusCode).toBe(200);
          }
        }),
      );
      await pool.close();
    } finally {
      await gw.stop();
    }
    return tenureDecisions(gw.output());
  }

  it('makes no decision to tenure on the request path; an operator who asks for pretenuring gets it', async () => {
    expect(await decisionsOf([], 4000)).toBe(0);
    // The operator's own flag wins; with pretenuring on, start-up and the same requests are tenured (the check can fail).
    expect(await decisionsOf(['--allocation-site-pretenuring'], 4000)).toBeGreaterThan(0);
  }, 120_000);

  it('leaves the choice to an operator who names the flag on the command line', () => {
    expect(operatorChosePretenuring([])).toBe(false);
    expect(operatorChosePretenuring(['--max-old-space-size=512', '--enable-source-maps'])).toBe(false);
    expect(operatorChosePretenuring(['--allocation-site-pretenuring'])).toBe(true);
    expect(operatorChosePretenuring(['--no-allocation-site-pretenuring'])).toBe(true);
  });
});
