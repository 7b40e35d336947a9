/**
 * Verification by `<meta name="linkpatrol-verify">` in the root page's head. Reading stops at </head> (or <body>),
 * so a large page costs little and a tag in the body does not count.
 */
import { HtmlScanner, ReadAttributes } from "../crawler/html-scanner.ts";
import { bodyText, fetchForVerification, unusableAnswer, type VerificationFetchSettings } from "./http-fetch.ts";
import type { MethodResult, VerificationTarget } from "./types.ts";

/** A root page larger than this is read only this far; the head comes first anyway. */
const MAX_PAGE_BYTES = 2 * 1024 * 1024;
/** The page is fed to the parser in slices so it can stop early. */
const SLICE_CHARS = 16 * 1024;
const META_NAME = "linkpatrol-verify";
/** The only attributes read: a meta tag's name and content. */
const META_ATTRIBUTES = new ReadAttributes(new Map([["meta", new Set(["name", "content"])]]), new Set());

function result(passed: boolean, reason: string): MethodResult {
  return { method: "meta_tag", passed, reason };
}

/** The trimmed `content` of every linkpatrol-verify meta tag in the document's head, in order. */
export function verificationMetaContents(html: string): string[] {
  const contents: string[] = [];
  let inHeadArea = true;
  const parser = new HtmlScanner(() => false, META_ATTRIBUTES, {
    onopentag(name, attributes) {
      if (name === "body") inHeadArea = false;
      if (inHeadArea && name === "meta" && attributes.name?.trim().toLowerCase() === META_NAME) {
        contents.push((attributes.content ?? "").trim());
      }
    },
    ontext() {},
    onclosetag(name) {
      if (name === "head") inHeadArea = false;
    },
  });
  for (let offset = 0; offset < html.length && inHeadArea; offset += SLICE_CHARS) {
    parser.write(html.slice(offset, offset + SLICE_CHARS));
  }
  parser.end();
  return contents;
}

/** Checks the root page's meta tag; never rejects. */
export async function checkMetaTag(target: VerificationTarget, settings: VerificationFetchSettings): Promise<MethodResult> {
  const url = target.rootUrl;
  const answer = await fetchForVerification(url, settings, MAX_PAGE_BYTES);
  const problem = unusableAnswer(url, answer, settings.timeoutMs);
  if (problem !== null || answer.kind !== "response") return result(false, problem ?? `GET ${url} failed`);

  const contents = verificationMetaContents(bodyText(answer));
  if (contents.length === 0) return result(false, `no <meta name="${META_NAME}"> tag on ${url}`);
  if (contents.includes(target.token)) return result(true, `<meta name="${META_NAME}"> on ${url} carries the token`);
  return result(false, `meta tag content does not match the token (${url})`);
}
