import { describe, expect, it } from 'vitest';
import type { LeafCall } from '../../../routing/execute.js';
import type { Outcome } from '../../../routing/outcome.js';
import { batchLineIdempotencyKey, batchLineInterceptor, batchLineLocals } from './batch-line-dispatch.js';

function call(locals: Record<string, unknown> | undefined): LeafCall {
  return { target: { provider: 'openai', config: {}, forwardHeaders: { 'x-trace': 't' } }, input: { locals } } as unknown as LeafCall;
}

describe('batchLineInterceptor', () => {
  const intercept = batchLineInterceptor();
  const answer = { status: 200 } as Outcome;

  it('records the dispatch before the send and adds the Idempotency-Key to the forwarded headers', async () => {
    const events: string[] = [];
    const c = call(
      batchLineLocals({ idempotencyKey: batchLineIdempotencyKey('batch_gwabc', 7), dispatch: async () => void events.push('dispatch') }),
    );
    const out = await intercept(c, async () => {
      events.push('send');
      return answer;
    });
    expect(out).toBe(answer);
    expect(events).toEqual(['dispatch', 'send']);
    expect(c.target.forwardHeaders).toEqual({ 'x-trace': 't', 'idempotency-key': 'batch_gwabc:7' });
  });

  it('does not send when the dispatch cannot be recorded', async () => {
    let sent = false;
    const c = call(batchLineLocals({ idempotencyKey: 'k', dispatch: () => Promise.reject(new Error('lost the claim')) }));
    await expect(intercept(c, async () => ((sent = true), answer))).rejects.toThrow('lost the claim');
    expect(sent).toBe(false);
  });

  it('leaves other requests untouched', async () => {
    const c = call({});
    const before = c.target;
    expect(await intercept(c, async () => answer)).toBe(answer);
    expect(c.target).toBe(before);
    expect(await intercept(call(undefined), async () => answer)).toBe(answer);
  });
});
