import { HttpClient } from '../../../foundation/lib/http-client.js';
import { FakeClock, systemClock, type Clock } from '../../../foundation/lib/clock.js';
import type { CallContext } from '../../provider.js';

/** Test credentials shared with the Bedrock fake (test/fakes/bedrock). */
export const TEST_CREDENTIALS = {
  cloud1_access_key_id: 'AKIDFAKEBEDROCK00001',
  cloud1_secret_access_key: 'fake/secret/key/for/bedrock/tests/0000000',
};

/** A CallContext for adapter tests. */
export function callContext(
  opts: {
    config?: Record<string, unknown>;
    customHost?: string;
    apiKey?: string;
    stream?: boolean;
    http?: HttpClient;
    clock?: Clock;
    forwardHeaders?: Record<string, string>;
  } = {},
): CallContext {
  return {
    target: {
      provider: 'bedrock',
      apiKey: opts.apiKey,
      customHost: opts.customHost,
      config: opts.config ?? { provider: 'bedrock', ...TEST_CREDENTIALS },
      forwardHeaders: opts.forwardHeaders ?? {},
    },
    stream: opts.stream ?? false,
    signal: new AbortController().signal,
    http: opts.http ?? new HttpClient(),
    clock: opts.clock ?? systemClock,
  };
}

export { FakeClock };
