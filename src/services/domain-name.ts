import { InvalidRequestError, UnsafeUrlError } from "../core/errors.ts";

/**
 * Rules for a domain's `name` (a host, optionally with a port) and its `root_url` (docs/api.md "Domains"):
 * names are stored in one canonical form (lowercase, IDNs as punycode, no trailing dot, no port when it is
 * the root URL's default) so one site cannot be registered twice, and the root URL must share the name's
 * host and port.
 */

export interface DomainName {
  /** Normalised `host[:port]` as stored. */
  name: string;
  /** Host alone (IPv6 in brackets), as used in URLs and for the DNS TXT record. */
  hostname: string;
  port: number | null;
}

const HOST_PORT = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i;
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443 };

function invalid(field: string, message: string): InvalidRequestError {
  return new InvalidRequestError(`invalid ${field}`, [{ field, message }]);
}

/** Parses and normalises a domain name; throws InvalidRequestError naming `field`. */
export function parseDomainName(input: string, field = "name"): DomainName {
  const text = input
    .trim()
    .toLowerCase()
    .replace(/\.(?=$|:)/, "");
  const url = /^https?:\/\//.test(text) ? URL.parse(input.trim()) : null;
  if (url !== null && url.host !== "") {
    // A pasted URL: say what to send instead (the API keeps the contract's host-only name).
    throw invalid(field, `is a URL; send its host as name ("${url.host}") and the URL as root_url ("${url.origin}${url.pathname}")`);
  }
  const match = HOST_PORT.exec(text);
  if (!match || /[\s/?#@\\]/.test(text)) throw invalid(field, "must be a host name, optionally with :port (no scheme or path)");
  const [, rawHost, rawPort] = match;
  let hostname: string;
  try {
    hostname = new URL(`http://${rawHost}/`).hostname;
  } catch {
    throw invalid(field, "not a valid host name");
  }
  const isIp = hostname.startsWith("[") || /^\d+\.\d+\.\d+\.\d+$/.test(hostname);
  if (
    !isIp &&
    (hostname.length > 253 ||
      !hostname
        .replace(/\.$/, "")
        .split(".")
        .every((label) => LABEL.test(label)))
  ) {
    throw invalid(field, "not a valid host name");
  }
  const port = rawPort === undefined ? null : Number(rawPort);
  if (port !== null && (port < 1 || port > 65535)) throw invalid(field, "port must be between 1 and 65535");
  return { name: port === null ? hostname : `${hostname}:${port}`, hostname, port };
}

/** A registration in canonical form: the domain and its root URL. */
export interface ResolvedDomain extends DomainName {
  rootUrl: string;
}

/**
 * Validates a registration: the name, then the root URL against it (default `https://NAME/`). A port that
 * is the root URL's default is dropped from the name, so `example.com:443` and `example.com` are one domain.
 */
export function resolveDomain(input: { name: string; root_url?: string }): ResolvedDomain {
  const domain = parseDomainName(input.name);
  const rootUrl = resolveRootUrl(domain, input.root_url);
  const canonical = domain.port === DEFAULT_PORTS[new URL(rootUrl).protocol] ? { ...domain, name: domain.hostname, port: null } : domain;
  return { ...canonical, rootUrl };
}

/** Validates `rootUrl` against the domain (or builds the default `https://NAME/`); returns it normalised. */
export function resolveRootUrl(domain: DomainName, rootUrl: string | undefined): string {
  if (rootUrl === undefined) return new URL(`https://${domain.name}/`).href;
  let url: URL;
  try {
    url = new URL(rootUrl);
  } catch {
    throw invalid("root_url", "must be an absolute http or https URL");
  }
  if (!(url.protocol in DEFAULT_PORTS)) {
    throw new UnsafeUrlError(`the ${url.protocol} scheme is not allowed for root_url; only http and https are`, [{ field: "root_url" }]);
  }
  if (url.username || url.password) throw invalid("root_url", "must not contain credentials");
  const port = url.port === "" ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  const expectedPort = domain.port ?? DEFAULT_PORTS[url.protocol];
  if (url.hostname !== domain.hostname || port !== expectedPort) {
    throw invalid("root_url", `must be on the domain's own host and port (${domain.name})`);
  }
  url.hash = "";
  return url.href;
}
