import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** An open `GET /v1/logs/tail` as a test reads it: every event so far, and a wait for the next ones. */
export interface Tail {
  status: number;
  /** The JSON error body when the answer is not a stream. */
  error?: { error: { code: string; param: string | null; message: string } };
  events: EventSourceMessage[];
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  /** Waits until `predicate` holds for the events so far (rejects after `ms`). */
  until(predicate: (events: EventSourceMessage[]) => boolean, ms?: number): Promise<EventSourceMessage[]>;
  close(): void;
}

/** Opens the tail with `headers` (a key or a session cookie) and reads its events with a real SSE parser. */
export async function openTail(url: string, query: string, headers: Record<string, string>): Promise<Tail> {
  const abort = new AbortController();
  const res = await fetch(`${url}/v1/logs/tail${query}`, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: EventSourceMessage[] = [];
  const waiters = new Set<() => void>();
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const error = (await res.json()) as Tail['error'];
    return {
      status: res.status,
      error,
      events,
      ended: Promise.resolve(),
      until: () => Promise.reject(new Error('not a stream')),
      close: () => undefined,
    };
  }
  const parser = createParser({
    onEvent(e) {
      events.push(e);
      for (const w of waiters) w();
    },
  });
  const ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // Aborted by close().
    }
  })();
  return {
    status: res.status,
    events,
    ended,
    until(predicate, ms = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(events)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(events);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`tail: condition not met within ${ms} ms; events: ${JSON.stringify(events.map((e) => e.event))}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    close: () => abort.abort(),
  };
}

/** The log rows of the tail's `log` events, parsed. */
export function logRows(events: EventSourceMessage[]): Array<Record<string, any>> {
  return events.filter((e) => e.event === 'log').map((e) => JSON.parse(e.data));
}
