/**
 * Verification by DNS TXT record: `_linkpatrol.<hostname>` must hold a record equal to `linkpatrol-verify=<token>`.
 * A record's character-strings are joined before comparing (long values are split at 255 bytes). The lookup
 * uses its own Resolver so `verification.dns_servers` can point at an authoritative or internal server; Bun's
 * resolver timeout has a one-second granularity, so a timer cancels the query at the configured deadline.
 *
 * Bun 1.3.14's resolveTxt returns each character-string of a record as a record of its own (Node returns
 * [["ab","cd"]], Bun [["ab"],["cd"]]), so a value split across strings is also accepted when consecutive
 * entries join to it. That cannot let anyone pass who could not already publish the record.
 */
import { Resolver } from "node:dns/promises";
import { ipLiteral } from "../net/resolve.ts";
import { errorCode } from "../net/network-error.ts";
import { hostnameOf, txtRecordName, txtRecordValue } from "./target.ts";
import type { MethodResult, VerificationTarget } from "./types.ts";

/** Where and how long to ask. */
export interface DnsTxtSettings {
  /** IP, "IPv4:PORT" or "[IPv6]:PORT" entries (validated by the config schema); empty uses the system's resolvers. */
  servers: string[];
  timeoutMs: number;
}

const NOT_FOUND_CODES = new Set(["ENOTFOUND", "ENODATA", "NXDOMAIN", "NODATA"]);

function result(passed: boolean, reason: string): MethodResult {
  return { method: "dns_txt", passed, reason };
}

function lookupTxt(name: string, settings: DnsTxtSettings): Promise<string[][]> {
  // c-ares counts its timeout per try; two tries fit within the deadline the timer enforces.
  const resolver = new Resolver({ timeout: Math.max(1, Math.ceil(settings.timeoutMs / 2)), tries: 2 });
  if (settings.servers.length > 0) resolver.setServers(settings.servers);
  const timer = setTimeout(() => resolver.cancel(), settings.timeoutMs);
  return resolver.resolveTxt(name).finally(() => clearTimeout(timer));
}

/** Bounds the search below: a verification RRset has a handful of entries, not thousands. */
const MAX_ENTRIES_JOINED = 64;

/** True when a run of consecutive entries concatenates to `expected` (see Bun's splitting above). */
function joinsToExpected(records: string[][], expected: string): boolean {
  const strings = records.flat().slice(0, MAX_ENTRIES_JOINED);
  for (let start = 0; start < strings.length; start++) {
    let joined = "";
    for (let end = start; end < strings.length && joined.length < expected.length; end++) {
      joined += strings[end];
      if (joined.trim() === expected) return true;
    }
  }
  return false;
}

/** Checks the TXT record; never rejects. */
export async function checkDnsTxt(target: VerificationTarget, settings: DnsTxtSettings): Promise<MethodResult> {
  if (ipLiteral(hostnameOf(target.name)) !== null) return result(false, "DNS TXT does not apply to an IP address");
  const name = txtRecordName(target);
  const expected = txtRecordValue(target);

  let records: string[][];
  try {
    records = await lookupTxt(name, settings);
  } catch (error) {
    const code = errorCode(error) || "error";
    if (NOT_FOUND_CODES.has(code)) return result(false, `TXT record ${name} not found (${code})`);
    if (code === "ECANCELLED" || code === "ETIMEOUT") {
      return result(false, `TXT lookup of ${name} got no answer within ${settings.timeoutMs} ms (${code})`);
    }
    return result(false, `TXT lookup of ${name} failed (${code})`);
  }

  const values = records.map((chunks) => chunks.join("").trim());
  if (values.includes(expected) || joinsToExpected(records, expected)) {
    return result(true, `TXT record ${name} contains ${expected}`);
  }
  const count = values.length === 1 ? "1 TXT record" : `${values.length} TXT records`;
  return result(false, `found ${count} at ${name}, none equal to ${expected}`);
}
