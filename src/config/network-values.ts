import { isIP } from "node:net";
import { z } from "zod";

/**
 * Config values that name network things, checked as strictly as the code that uses them will be,
 * so `linkpatrol config check` catches what would otherwise fail later (a CIDR at start, a DNS server
 * at the first verification).
 */

/** True for "ADDRESS/PREFIX" with a valid IPv4 or IPv6 address and a prefix within its size. */
function isCidr(value: string): boolean {
  const slash = value.lastIndexOf("/");
  if (slash < 0) return false;
  const family = isIP(value.slice(0, slash));
  const prefix = value.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/** True for a DNS server address: an IP, "IPv4:PORT" or "[IPv6]:PORT" (resolvers take no host names). */
function isDnsServer(value: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value);
  const withPort = /^([^:]+):(\d{1,5})$/.exec(value);
  const [address, port] = bracketed ? [bracketed[1]!, bracketed[2]] : withPort ? [withPort[1]!, withPort[2]] : [value, undefined];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return false;
  return bracketed ? isIP(address) === 6 : isIP(address) !== 0;
}

export const cidr = z.string().refine(isCidr, "must be a CIDR such as 10.0.0.0/8 or fd00::/8");
export const addressOrCidr = z.string().refine((value) => isIP(value) !== 0 || isCidr(value), "must be an IP address or a CIDR such as 10.0.0.0/8");
export const dnsServer = z.string().refine(isDnsServer, "must be an IP address, IPv4:PORT or [IPv6]:PORT");

/** True for an absolute http(s) URL without credentials, query or fragment: a base the dashboard's paths are appended to. */
function isPublicUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === "http:" || url.protocol === "https:") &&
      url.username === "" &&
      url.password === "" &&
      url.search === "" &&
      url.hash === "" &&
      !value.includes("#")
    );
  } catch {
    return false;
  }
}

export const publicUrl = z
  .string()
  .refine(isPublicUrl, "must be an http(s) URL without credentials, query or fragment, such as https://linkpatrol.example.com/");

/** True for a `postgres://` or `postgresql://` URL naming a host: the PostgreSQL store (storage.url). */
export function isPostgresUrlShape(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "postgres:" || url.protocol === "postgresql:") && url.hostname !== "";
  } catch {
    return false;
  }
}

export const postgresUrl = z
  .string()
  .max(2048)
  .refine(isPostgresUrlShape, "must be a postgres:// or postgresql:// URL naming a host, such as postgres://linkpatrol@db.internal:5432/linkpatrol");
