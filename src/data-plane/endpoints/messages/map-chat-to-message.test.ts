import { describe, expect, it } from 'vitest';
import { matchedStopSequence } from './map-chat-to-message.js';

describe('matchedStopSequence', () => {
  it("reads vLLM's stop_reason and SGLang's matched_stop when they name a sequence", () => {
    expect(matchedStopSequence({ finish_reason: 'stop', stop_reason: 'END' })).toBe('END');
    expect(matchedStopSequence({ finish_reason: 'stop', matched_stop: '\n\n' })).toBe('\n\n');
  });

  it('is null for an end-of-sequence token id, another finish reason, or nothing said', () => {
    expect(matchedStopSequence({ finish_reason: 'stop', matched_stop: 128009 })).toBeNull();
    expect(matchedStopSequence({ finish_reason: 'stop', stop_reason: null })).toBeNull();
    expect(matchedStopSequence({ finish_reason: 'length', stop_reason: 'END' })).toBeNull();
    expect(matchedStopSequence({ finish_reason: 'stop' })).toBeNull();
    expect(matchedStopSequence(undefined)).toBeNull();
  });
});
