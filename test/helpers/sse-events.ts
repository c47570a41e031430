/** One server-sent event: its `event:` name (when there is one) and its `data:` parsed as JSON. */
export interface SseEvent {
  event: string | undefined;
  data: unknown;
}

/** The events of a whole SSE answer, `[DONE]` left out. */
export async function readEvents(res: Response): Promise<SseEvent[]> {
  const text = await res.text();
  const out: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length === 0 || data.join('\n') === '[DONE]') continue;
    out.push({ event, data: JSON.parse(data.join('\n')) });
  }
  return out;
}
