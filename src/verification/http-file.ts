/**
 * Verification by well-known file: `<origin>/.well-known/linkpatrol-verify.txt` must answer 2xx with a body that
 * contains the token (whitespace and a trailing newline are fine; extra lines are tolerated).
 */
import { bodyText, fetchForVerification, unusableAnswer, type VerificationFetchSettings } from "./http-fetch.ts";
import { verificationFileUrl } from "./target.ts";
import type { MethodResult, VerificationTarget } from "./types.ts";

/** The file holds a token, not a page: 64 KiB is plenty. */
const MAX_FILE_BYTES = 64 * 1024;

function result(passed: boolean, reason: string): MethodResult {
  return { method: "http_file", passed, reason };
}

/** Checks the well-known file; never rejects. */
export async function checkHttpFile(target: VerificationTarget, settings: VerificationFetchSettings): Promise<MethodResult> {
  const url = verificationFileUrl(target);
  const answer = await fetchForVerification(url, settings, MAX_FILE_BYTES);
  const problem = unusableAnswer(url, answer, settings.timeoutMs);
  if (problem !== null || answer.kind !== "response") return result(false, problem ?? `GET ${url} failed`);

  if (bodyText(answer).trim().includes(target.token)) return result(true, `${url} contains the token`);
  return result(false, `the file does not contain the token (${url})`);
}
