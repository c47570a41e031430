/** SSE parse and serialise (src/foundation/lib/sse.ts): the framing every streamed answer passes through. */
import { STREAM_FRAMES } from '../fake-upstream.mjs';

/** Registers the SSE tasks; `dist` imports a module from the built gateway. */
export async function register(bench, dist) {
  const { SseDecoder, sseData } = await dist('foundation/lib/sse.js');
  const whole = Buffer.concat(STREAM_FRAMES);
  const pieces = [];
  for (let i = 0; i < whole.length; i += 64) pieces.push(whole.subarray(i, i + 64));
  const chunk = JSON.parse(STREAM_FRAMES[3].toString().slice(6));
  bench.add(`SseDecoder: 21-frame stream (${whole.length} B) in one push`, () => {
    const d = new SseDecoder();
    if (d.push(whole).length !== 21) throw new Error('bad parse');
  });
  bench.add(`SseDecoder: same stream in ${pieces.length} pushes of 64 B`, () => {
    const d = new SseDecoder();
    let n = 0;
    for (const p of pieces) n += d.push(p).length;
    if (n !== 21) throw new Error('bad parse');
  });
  bench.add('sseData: serialise one chat chunk', () => sseData(chunk));
  return [];
}
