import type { LeafInterceptor } from '../../routing/execute.js';
import type { StreamTextTally } from './estimate-tokens.js';

/**
 * Lets the limit hooks see the chunks of a streamed answer: when the request has a tally (it matched a
 * tokens rate limit or a usage limit), the answering target's stream is observed into it: every chunk
 * when the tally's text is read (a tokens policy), else the usage chunk alone. Keyed by the request's
 * headers object, which the hooks (`dp.headers`) and the router (`call.input.headers`) share.
 */
export function createStreamTallyInterceptor(tallies: WeakMap<object, StreamTextTally>): LeafInterceptor {
  return (call, next) => {
    // The hook sets the tally before routing: a request without one needs nothing from us, nor one
    // that is not streamed (its usage is read from the JSON answer; no promise step per call for it).
    if (!call.input.stream || !tallies.has(call.input.headers)) return next();
    return next().then((outcome) => {
      const tally = tallies.get(call.input.headers);
      if (tally && outcome.stream) outcome.stream.observe({ usageOnly: !tally.needsText, onChunk: (chunk) => tally.push(chunk) });
      return outcome;
    });
  };
}
