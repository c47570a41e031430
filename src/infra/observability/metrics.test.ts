import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { MAX_SERIES, Metrics } from './metrics.js';
import { MAX_KNOWN_MODELS } from './metric-labels.js';

const randomModel = () => 'm-' + randomBytes(12).toString('hex');

describe('Metrics label bounds', () => {
  it('5,000 distinct request models (answered or not) leave /metrics small and the scrape fast', async () => {
    const metrics = new Metrics();
    for (let i = 0; i < 5000; i++) {
      const model = randomModel();
      // Half are answered with the model (2xx), half fail; some names carry control characters.
      const answered = i % 2 === 0;
      metrics.observeRequest({
        endpoint: 'chat',
        provider: 'openai',
        model: i % 7 === 0 ? `${model}\n\u001b` : model,
        status: answered ? 200 : 404,
        seconds: 0.01,
        answeredModel: answered ? model : undefined,
      });
    }
    const started = performance.now();
    const text = await metrics.registry.metrics();
    const ms = performance.now() - started;
    expect(text.length).toBeLessThan(200_000);
    expect(ms).toBeLessThan(1000);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    const models = new Set([...text.matchAll(/gateway_requests_total\{[^}]*model="([^"]*)"/g)].map((m) => m[1]));
    expect(models.size).toBeLessThanOrEqual(MAX_KNOWN_MODELS + 1);
    expect(models.has('other')).toBe(true);
  });

  it('a model is named once a provider answered with it; failures of unknown models are `other`', async () => {
    const metrics = new Metrics();
    metrics.observeRequest({ endpoint: 'chat', provider: 'openai', model: 'gpt-4o', status: 404, seconds: 0.1 });
    metrics.observeRequest({ endpoint: 'chat', provider: 'openai', model: 'gpt-4o', status: 200, seconds: 0.1, answeredModel: 'gpt-4o' });
    metrics.observeRequest({ endpoint: 'chat', provider: 'openai', model: 'gpt-4o', status: 500, seconds: 0.1 });
    const text = await metrics.registry.metrics();
    expect(text).toContain('gateway_requests_total{endpoint="chat",provider="openai",model="other",status="404"} 1');
    expect(text).toContain('gateway_requests_total{endpoint="chat",provider="openai",model="gpt-4o",status="200"} 1');
    expect(text).toContain('gateway_requests_total{endpoint="chat",provider="openai",model="gpt-4o",status="500"} 1');
  });

  it('caps the series of each metric; provider names and statuses are cleaned', async () => {
    const metrics = new Metrics();
    for (let i = 0; i < MAX_SERIES + 200; i++) metrics.observeUpstream(`provider-${i}\r`, 200, 0.01);
    metrics.observeUpstream('openai', 9999, 0.01);
    const text = await metrics.registry.metrics();
    const series = text.split('\n').filter((l) => l.startsWith('gateway_upstream_duration_seconds_count'));
    expect(series.length).toBe(MAX_SERIES + 1);
    expect(text).toContain('gateway_upstream_duration_seconds_count{provider="other",status="other"} 201');
    expect(text).not.toContain('\r');
  });
});
