import { InvalidRequestError, UnsafeUrlError } from "../core/errors.ts";
import { parseDomainName } from "./domain-name.ts";

/**
 * What someone typed where the dashboard (or `domains add`) asks for a site: a pasted URL, whose scheme and
 * path are kept as the start page, or a host (optionally with `:port` and a path) whose scheme is still to be
 * decided (services/domains.service.ts tries https, then http). The API keeps the contract's `{name, root_url}`.
 */
export type SiteInput =
  /** A URL with its scheme: `name` is its host[:port], `rootUrl` the URL without its fragment. */
  | { kind: "url"; name: string; rootUrl: string }
  /** A host with no scheme: `path` starts with "/" ("/" when none was typed). */
  | { kind: "host"; name: string; path: string };

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

function invalid(field: string, message: string): InvalidRequestError {
  return new InvalidRequestError(`invalid ${field}`, [{ field, message }]);
}

/** Reads a site typed as a URL or a host; throws InvalidRequestError (or UnsafeUrlError for another scheme) naming `field`. */
export function readSiteInput(text: string, field = "name"): SiteInput {
  const typed = text.trim();
  if (typed === "") throw invalid(field, "type the site's address: a host such as docs.example.com, or paste its URL");
  const scheme = SCHEME.exec(typed);
  if (scheme !== null) {
    const protocol = scheme[1]!.toLowerCase();
    if (protocol !== "http" && protocol !== "https") {
      throw new UnsafeUrlError(`a ${protocol}: address cannot be checked; use an http:// or https:// URL`, [{ field }]);
    }
    let url: URL;
    try {
      url = new URL(typed);
    } catch {
      throw invalid(field, `"${typed}" is not a valid URL`);
    }
    if (url.username !== "" || url.password !== "") throw invalid(field, "the URL must not contain a user name or password");
    if (url.hostname === "") throw invalid(field, `"${typed}" has no host name`);
    url.hash = "";
    return { kind: "url", name: url.host, rootUrl: url.href };
  }
  const cut = typed.search(/[/?#]/);
  const host = cut === -1 ? typed : typed.slice(0, cut);
  const rest = cut === -1 ? "" : typed.slice(cut).replace(/#.*$/, "");
  const name = parseDomainName(host, field).name;
  return { kind: "host", name, path: rest.startsWith("/") ? rest : `/${rest}` };
}

/** The same start page on the other scheme, on the same host and (when the name gives one) port. */
export function otherScheme(rootUrl: string, name: string): string {
  const url = new URL(rootUrl);
  const hasPort = parseDomainName(name).port !== null;
  const other = new URL(url.href.replace(/^https?:/, url.protocol === "https:" ? "http:" : "https:"));
  // Without a port in the name, each scheme uses its own default port.
  if (!hasPort) other.port = "";
  else other.port = url.port === "" ? String(url.protocol === "https:" ? 443 : 80) : url.port;
  return other.href;
}
