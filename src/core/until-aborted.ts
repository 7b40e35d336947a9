/** Waits for `work` unless `signal` aborts first; true when the work finished. */
export async function untilAborted(work: Promise<unknown>, signal?: AbortSignal): Promise<boolean> {
  if (!signal) {
    await work;
    return true;
  }
  if (signal.aborted) return false;
  let onAbort!: () => void;
  const aborted = new Promise<false>((resolve) => {
    onAbort = () => resolve(false);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work.then(() => true as const), aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
