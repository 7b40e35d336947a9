/**
 * Starts the runtime's HTTP client without sending anything: a request whose signal is aborted before it starts
 * sets up the client (its thread and TLS context, ~20 ms of CPU the first request otherwise pays) and is refused
 * before any socket is opened. `check` calls it before loading its modules, so the set-up runs on the client's
 * thread while they load (docs/decisions.md, "Start-up: a command loads what it runs").
 */
export function warmHttpClient(url = "http://127.0.0.1/"): void {
  fetch(url, { signal: AbortSignal.abort() }).catch(() => {});
}
