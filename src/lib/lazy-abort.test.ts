import { describe, expect, it } from 'vitest';
import { LazyAbort, signalOf } from './lazy-abort.js';

describe('LazyAbort', () => {
  it('calls registered callbacks once on abort, not unregistered ones, and keeps the reason', () => {
    const a = new LazyAbort();
    const calls: string[] = [];
    a.onAbort(() => calls.push('one'));
    const off = a.onAbort(() => calls.push('two'));
    off();
    const reason = new Error('client closed the connection');
    a.abort(reason);
    a.abort(new Error('second'));
    expect(calls).toEqual(['one']);
    expect(a.aborted).toBe(true);
    expect(a.reason).toBe(reason);
  });

  it('creates a real signal on demand that follows the switch, before or after the abort', () => {
    const before = new LazyAbort();
    const signal = before.signal;
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(before.signal).toBe(signal);
    let fired = 0;
    signal.addEventListener('abort', () => fired++);
    before.abort(new Error('gone'));
    expect(signal.aborted).toBe(true);
    expect(fired).toBe(1);
    const after = new LazyAbort();
    after.abort(new Error('late'));
    expect(signalOf(after).aborted).toBe(true);
    expect((signalOf(after).reason as Error).message).toBe('late');
    const plain = new AbortController().signal;
    expect(signalOf(plain)).toBe(plain);
  });
});
