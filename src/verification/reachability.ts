/**
 * Whether a URL gets any HTTP answer, asked as verification asks: tells a wrong scheme (https refused, http
 * answers) from a site that is down.
 */
import { describeFetchErrorKind, type FetchErrorKind } from "../net/fetch-result.ts";
import { fetchForVerification, type VerificationFetchSettings } from "./http-fetch.ts";

/** An HTTP answer of any status, or the reason there was none. */
export type Reach = { answered: true; status: number } | { answered: false; error: FetchErrorKind; reason: string };

/** Only the status matters: the body is not read beyond a token amount. */
const PROBE_BODY_BYTES = 1024;

/** GETs `url` once, following no redirect (a redirect is an answer); never rejects. */
export async function reach(url: string, settings: VerificationFetchSettings): Promise<Reach> {
  const result = await fetchForVerification(url, settings, PROBE_BODY_BYTES, 0);
  if (result.kind === "response") return { answered: true, status: result.status };
  const reason = result.error === "aborted" ? `no answer within ${settings.timeoutMs} ms` : describeFetchErrorKind(result.error);
  return { answered: false, error: result.error, reason };
}
