/**
 * Verification by DNS TXT: `_linkpatrol.<hostname>` must hold `linkpatrol-verify=<token>`. Bun 1.3.14 returns
 * each character-string as its own record, so consecutive entries that join to the value also pass.
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
