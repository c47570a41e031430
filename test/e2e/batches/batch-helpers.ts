import { toFile } from 'openai';
import type OpenAI from 'openai';
import type { FakeOpenAI } from '../../fakes/openai/server.js';

/** A JSONL batch input of `n` chat requests; line i asks "line-i" (the fake echoes it), lines in `failing` send a body the fake refuses (400). */
export function chatLines(n: number, failing: Set<number> = new Set(), model = 'gpt-4o-mini'): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const body = failing.has(i) ? { model, messages: 'not-an-array' } : { model, messages: [{ role: 'user', content: `line-${i}` }] };
    lines.push(JSON.stringify({ custom_id: `req-${i}`, method: 'POST', url: '/v1/chat/completions', body }));
  }
  return lines.join('\n') + '\n';
}

/** Uploads a batch input file through the gateway. */
export async function uploadInput(client: OpenAI, text: string): Promise<string> {
  const f = await client.files.create({ file: await toFile(Buffer.from(text), 'input.jsonl'), purpose: 'batch' });
  return f.id;
}

/** Polls a batch until its status is one of `statuses`. */
export async function waitFor(client: OpenAI, id: string, statuses: string[], timeoutMs = 60_000): Promise<OpenAI.Batches.Batch> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const b = await client.batches.retrieve(id);
    if (statuses.includes(b.status)) return b;
    if (Date.now() > deadline) throw new Error(`batch ${id} stuck in ${b.status}: ${JSON.stringify(b)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** How many chat requests the fake received per custom id (read back from the echoed "line-i" text). */
export function requestsPerLine(fake: FakeOpenAI): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of fake.requests) {
    if (r.path !== '/v1/chat/completions') continue;
    const text = Array.isArray(r.body?.messages) ? String(r.body.messages.at(-1)?.content ?? '') : '';
    const m = /^line-(\d+)$/.exec(text);
    const key = m ? `req-${m[1]}` : 'other';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Parses a JSONL text. */
export function jsonl(text: string): any[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}
