/**
 * Work the cache does off the response path (writes, embeddings for refreshed answers, streams still
 * being collected). `settle` waits for it, bounded, on shutdown and in tests.
 */
export class Background {
  private readonly pending = new Set<Promise<unknown>>();

  /** Runs `task` after the current turn of the event loop; failures go to `onError`. */
  run(task: () => Promise<void>, onError: (err: unknown) => void): void {
    const p: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(task)
      .catch(onError)
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** Tracks something that finishes later (a stream being collected); call the returned function when it does. */
  hold(): () => void {
    let release!: () => void;
    const p = new Promise<void>((resolve) => (release = resolve)).finally(() => this.pending.delete(p));
    this.pending.add(p);
    return release;
  }

  /** Resolves once everything pending (including work it started) finished, or after `timeoutMs`. */
  async settle(timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.pending.size > 0 && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))));
      await Promise.race([Promise.allSettled([...this.pending]), timeout]);
      clearTimeout(timer);
    }
  }
}
