import { describe, expect, it } from 'vitest';
import type { LeafCall } from '../../routing/execute.js';
import type { Outcome } from '../../routing/outcome.js';
import type { StreamObserver } from '../../routing/stream-answer.js';
import { StreamTextTally } from './estimate-tokens.js';
import { createStreamTallyInterceptor } from './stream-tally-interceptor.js';

function call(headers: object, stream: boolean): LeafCall {
  return { input: { headers, stream } } as unknown as LeafCall;
}

/** An outcome whose stream records the observers attached to it. */
function streamedOutcome(observers: StreamObserver[]): Outcome {
  return {
    status: 200,
    provider: 'openai',
    path: 'config',
    retries: 0,
    cacheStatus: 'DISABLED',
    headers: {},
    stream: { observe: (o: StreamObserver) => observers.push(o) },
  } as unknown as Outcome;
}

describe('stream tally interceptor', () => {
  it('hands a request without a tally straight to the target', () => {
    const intercept = createStreamTallyInterceptor(new WeakMap());
    const answer = Promise.resolve(streamedOutcome([]));
    expect(intercept(call({}, true), () => answer)).toBe(answer);
  });

  it('hands a non-streamed call straight to the target even when its request has a tally (its usage is read from the JSON answer)', () => {
    const headers = {};
    const tallies = new WeakMap<object, StreamTextTally>([[headers, new StreamTextTally()]]);
    const answer = Promise.resolve({ status: 200 } as Outcome);
    expect(createStreamTallyInterceptor(tallies)(call(headers, false), () => answer)).toBe(answer);
  });

  it('observes a streamed answer into the tally: the usage chunk alone, or every chunk when the text is read', async () => {
    for (const needsText of [false, true]) {
      const headers = {};
      const tally = new StreamTextTally();
      tally.needsText = needsText;
      const observers: StreamObserver[] = [];
      const outcome = await createStreamTallyInterceptor(new WeakMap([[headers, tally]]))(call(headers, true), () =>
        Promise.resolve(streamedOutcome(observers)),
      );
      expect(outcome.stream).toBeDefined();
      expect(observers).toHaveLength(1);
      expect(observers[0]!.usageOnly).toBe(!needsText);
      observers[0]!.onChunk!({
        choices: [{ index: 0, delta: { content: 'hi' } }],
        usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
      });
      expect(tally.usage).toEqual({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 });
      expect(tally.text).toBe('hi');
    }
  });
});
