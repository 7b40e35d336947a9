/** Reads a child's output stream as it arrives, so a test can wait for a line without waiting for exit. */
export class StreamWatcher {
  text = "";
  private readonly done: Promise<void>;

  constructor(stream: ReadableStream<Uint8Array>) {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    this.done = (async () => {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        this.text += decoder.decode(chunk.value, { stream: true });
      }
    })();
  }

  /** Resolves with the first match of `pattern` in the output; rejects after `timeoutMs` or at stream end. */
  async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    let ended = false;
    void this.done.then(() => (ended = true));
    while (Date.now() < deadline) {
      const match = this.text.match(pattern);
      if (match) return match;
      if (ended) break;
      await Bun.sleep(25);
    }
    throw new Error(`timed out or stream ended waiting for ${pattern}; output so far:\n${this.text}`);
  }
}
