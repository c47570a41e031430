import type { LeafInterceptor } from '../routing/execute.js';
import type { StreamTextTally } from './estimate-tokens.js';

/**
 * Lets the rate-limit hook see the chunks of a streamed answer: when the request has a tally (it
 * matched a tokens policy), the answering target's stream is observed into it. Keyed by the request's
 * headers object, which the hook (`dp.headers`) and the router (`call.input.headers`) share.
 */
export function createStreamTallyInterceptor(tallies: WeakMap<object, StreamTextTally>): LeafInterceptor {
  return (call, next) => {
    // The hook sets the tally before routing: a request without one needs nothing from us.
    if (!tallies.has(call.input.headers)) return next();
    return next().then((outcome) => {
      const tally = tallies.get(call.input.headers);
      if (tally && outcome.stream) outcome.stream.observe({ onChunk: (chunk) => tally.push(chunk) });
      return outcome;
    });
  };
}
