import { InvalidRequestError } from "../core/errors.ts";

/**
 * Rules for a domain's `name` (a host, optionally with a port) and its `root_url` (CONTRACT "Domains"):
 * names are stored lowercase with IDNs as punycode, and the root URL must share the name's host and port.
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
  const text = input.trim().toLowerCase();
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
  if (!isIp && (hostname.length > 253 || !hostname.replace(/\.$/, "").split(".").every((label) => LABEL.test(label)))) {
    throw invalid(field, "not a valid host name");
  }
  const port = rawPort === undefined ? null : Number(rawPort);
  if (port !== null && (port < 1 || port > 65535)) throw invalid(field, "port must be between 1 and 65535");
  return { name: port === null ? hostname : `${hostname}:${port}`, hostname, port };
}

/** Validates `rootUrl` against the domain (or builds the default `https://NAME/`); returns it normalised. */
export function resolveRootUrl(domain: DomainName, rootUrl: string | undefined): string {
  if (rootUrl === undefined) return `https://${domain.name}/`;
  let url: URL;
  try {
    url = new URL(rootUrl);
  } catch {
    throw invalid("root_url", "must be an absolute http or https URL");
  }
  if (!(url.protocol in DEFAULT_PORTS)) throw invalid("root_url", "must use http or https");
  if (url.username || url.password) throw invalid("root_url", "must not contain credentials");
  const port = url.port === "" ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  const expectedPort = domain.port ?? DEFAULT_PORTS[url.protocol];
  if (url.hostname !== domain.hostname || port !== expectedPort) {
    throw invalid("root_url", `must be on the domain's own host and port (${domain.name})`);
  }
  url.hash = "";
  return url.href;
}
