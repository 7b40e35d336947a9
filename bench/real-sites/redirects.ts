/**
 * Where a redirect on the site points, asked of the site itself. wget2's --stats-site CSV records a 3xx
 * status but not its Location, so to judge a redirected link the way the other tools do (by the status at
 * the end of the chain) the harness asks nginx again. Loopback only, and only for the few URLs that
 * answered 3xx (nginx's directory redirects, `/dir` → `/dir/`).
 */

/** The absolute Location of `url`'s redirect, or null when it does not redirect (or does not answer). */
export async function redirectTarget(url: string): Promise<string | null> {
  try {
    const res = await fetch(url, { method: "HEAD", redirect: "manual", signal: AbortSignal.timeout(10_000) });
    const location = res.headers.get("location");
    return res.status >= 300 && res.status < 400 && location !== null ? new URL(location, url).href : null;
  } catch {
    return null;
  }
}
