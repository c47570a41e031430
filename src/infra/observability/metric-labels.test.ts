import { describe, expect, it } from 'vitest';
import { KnownModels, MAX_LABEL_LENGTH, OTHER, SeriesCap, cleanLabel, statusLabel } from './metric-labels.js';

describe('cleanLabel and statusLabel', () => {
  it('strips control characters, caps the length and never answers an empty value', () => {
    expect(cleanLabel('chat\n\u0000\u001b[31m\u007f\u0085\u2028x')).toBe('chat[31mx');
    expect(cleanLabel('a'.repeat(500))).toHaveLength(MAX_LABEL_LENGTH);
    expect(cleanLabel('\r\n')).toBe(OTHER);
    expect(cleanLabel('openai')).toBe('openai');
  });

  it('keeps HTTP statuses 100–599 only', () => {
    expect(statusLabel(200)).toBe('200');
    expect(statusLabel(446)).toBe('446');
    expect(statusLabel(99)).toBe(OTHER);
    expect(statusLabel(1000)).toBe(OTHER);
    expect(statusLabel(200.5)).toBe(OTHER);
  });
});

describe('KnownModels', () => {
  it('names a model only after a provider answered with it, and only when it looks like a model name', () => {
    const models = new KnownModels(3);
    expect(models.label('gpt-4o')).toBe(OTHER);
    models.learn('gpt-4o');
    models.learn('anthropic.claude-3-5-sonnet-20240620-v1:0');
    models.learn('bad\nname');
    models.learn('x'.repeat(65));
    expect(models.label('gpt-4o')).toBe('gpt-4o');
    expect(models.label('anthropic.claude-3-5-sonnet-20240620-v1:0')).toBe('anthropic.claude-3-5-sonnet-20240620-v1:0');
    expect(models.label('bad\nname')).toBe(OTHER);
    expect(models.label(undefined)).toBe(OTHER);
  });

  it('stops learning at its cap', () => {
    const models = new KnownModels(2);
    for (const m of ['a1', 'a2', 'a3']) models.learn(m);
    expect([models.label('a1'), models.label('a2'), models.label('a3')]).toEqual(['a1', 'a2', OTHER]);
  });
});

describe('SeriesCap', () => {
  it('passes known label sets, admits new ones up to the cap, then records everything new under `other`', () => {
    const cap = new SeriesCap(['provider', 'status'] as const, 2);
    expect(cap.admit({ provider: 'openai', status: '200' })).toEqual({ provider: 'openai', status: '200' });
    expect(cap.admit({ provider: 'openai\u0007', status: '500' })).toEqual({ provider: 'openai', status: '500' });
    expect(cap.admit({ provider: 'cohere', status: '200' })).toEqual({ provider: OTHER, status: OTHER });
    expect(cap.admit({ provider: 'openai', status: '200' })).toEqual({ provider: 'openai', status: '200' });
  });

  it('answers a label set seen before with the same object, and the same answer as the first time', () => {
    const cap = new SeriesCap(['provider', 'status'] as const, 1);
    const first = cap.admit({ provider: 'openai', status: '200' });
    expect(cap.admit({ provider: 'openai', status: '200' })).toBe(first);
    const over = cap.admit({ provider: 'cohere', status: '200' });
    expect(over).toEqual({ provider: OTHER, status: OTHER });
    expect(cap.admit({ provider: 'cohere', status: '200' })).toBe(over);
    // A cleaned value that matches an admitted series is that series, remembered or not.
    expect(cap.admit({ provider: 'open\u0007ai', status: '200' })).toEqual(first);
  });

  it('never confuses two label sets whose values joined with NUL would read the same', () => {
    const cap = new SeriesCap(['a', 'b'] as const, 10);
    expect(cap.admit({ a: 'x\u0000y', b: 'z' })).toEqual({ a: 'xy', b: 'z' });
    expect(cap.admit({ a: 'x', b: 'y\u0000z' })).toEqual({ a: 'x', b: 'yz' });
    expect(cap.admit({ a: 'x', b: 'y\u0000z' })).toEqual({ a: 'x', b: 'yz' });
  });
});
