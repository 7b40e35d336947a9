/**
 * Waits for something a test receiver records: `check` is asked every `everyMs` until it answers other than
 * undefined, or `timeoutMs` passes and the error says what was awaited (`shortfall()` says how far it got).
 */
export async function pollUntil<T>(check: () => T | undefined, options: { timeoutMs: number; everyMs: number; shortfall: () => string }): Promise<T> {
  const until = Date.now() + options.timeoutMs;
  for (;;) {
    const answer = check();
    if (answer !== undefined) return answer;
    if (Date.now() >= until) throw new Error(`${options.shortfall()} within ${options.timeoutMs} ms`);
    await Bun.sleep(options.everyMs);
  }
}
