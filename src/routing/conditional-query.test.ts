import { describe, expect, it } from 'vitest';
import { matchesQuery, queryProblem } from './conditional-query.js';

const ctx = {
  metadata: { plan: 'pro', tier: '3' },
  params: { model: 'gpt-4o', temperature: 0.2, stream: true },
  url: { pathname: '/v1/chat/completions' },
};

describe('conditional queries', () => {
  it('supports every operator', async () => {
    expect(await matchesQuery({ 'metadata.plan': 'pro' }, ctx)).toBe(true);
    expect(await matchesQuery({ 'metadata.plan': { $eq: 'free' } }, ctx)).toBe(false);
    expect(await matchesQuery({ 'metadata.plan': { $ne: 'free' } }, ctx)).toBe(true);
    expect(await matchesQuery({ 'metadata.tier': { $gt: 2 } }, ctx)).toBe(true);
    expect(await matchesQuery({ 'metadata.tier': { $gte: 3, $lt: 4 } }, ctx)).toBe(true);
    expect(await matchesQuery({ 'params.temperature': { $lte: 0.1 } }, ctx)).toBe(false);
    expect(await matchesQuery({ 'params.model': { $in: ['gpt-4o', 'x'] } }, ctx)).toBe(true);
    expect(await matchesQuery({ 'params.model': { $nin: ['gpt-4o'] } }, ctx)).toBe(false);
    expect(await matchesQuery({ 'params.model': { $regex: '^gpt-4' } }, ctx)).toBe(true);
    expect(await matchesQuery({ 'metadata.missing': { $exists: false } }, ctx)).toBe(true);
    expect(await matchesQuery({ 'metadata.plan': { $exists: true } }, ctx)).toBe(true);
    expect(await matchesQuery({ 'url.pathname': '/v1/chat/completions' }, ctx)).toBe(true);
  });

  it('combines with $and / $or and implicit and', async () => {
    expect(await matchesQuery({ $or: [{ 'metadata.plan': 'free' }, { 'params.stream': true }] }, ctx)).toBe(true);
    expect(await matchesQuery({ $and: [{ 'metadata.plan': 'pro' }, { 'params.model': 'x' }] }, ctx)).toBe(false);
    expect(await matchesQuery({ 'metadata.plan': 'pro', 'params.model': 'gpt-4o' }, ctx)).toBe(true);
  });

  it('reports malformed queries', () => {
    expect(queryProblem({ 'metadata.a': { $foo: 1 } })).toContain('$foo');
    expect(queryProblem({ $or: {} })).toContain('array');
    expect(queryProblem({ 'metadata.a': { $in: 'x' } })).toContain('array');
    expect(queryProblem({ 'metadata.a': { $regex: '(' } })).toContain('valid');
    expect(queryProblem({ $and: [{ 'metadata.a': 1 }] })).toBeUndefined();
  });
});
