/**
 * Which IP addresses linkpatrol may connect to: public always, others only when allowed. IPv4 inside IPv6
 * (mapped, NAT64) is judged by the IPv4 address it reaches; anything unparsable is refused.
 */
import type { Config } from "../config/schema.ts";
import { cidrContains, parseCidr, parseIp, type Cidr, type ParsedIp } from "./cidr.ts";

/** What the operator allows beyond the public internet. */
export interface AddressPolicy {
  allowPrivateNetworks: boolean;
  allowedCidrs: string[];
}

/** Blocks that are not the public internet; the list and its reasons follow the IANA special-purpose registries. */
const PRIVATE_BLOCKS: readonly Cidr[] = [
  "0.0.0.0/8", // "this network"
  "10.0.0.0/8", // RFC 1918
  "100.64.0.0/10", // carrier-grade NAT
  "127.0.0.0/8", // loopback
  "169.254.0.0/16", // link-local, home of cloud metadata endpoints
  "172.16.0.0/12", // RFC 1918
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // documentation (TEST-NET-1)
  "192.168.0.0/16", // RFC 1918
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // documentation (TEST-NET-2)
  "203.0.113.0/24", // documentation (TEST-NET-3)
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, includes 255.255.255.255
  "::/96", // unspecified, loopback and the deprecated IPv4-compatible form
  "100::/64", // discard-only
  "2001:db8::/32", // documentation
  "fc00::/7", // unique local
  "fe80::/10", // link-local
  "ff00::/8", // multicast
].map((text) => {
  const cidr = parseCidr(text);
  if (cidr === null) throw new Error(`bad built-in CIDR ${text}`);
  return cidr;
});

/** IPv6 prefixes whose last 32 bits are an IPv4 address the packet actually reaches. */
const EMBEDDING_V4: readonly Cidr[] = ["::ffff:0:0/96", "64:ff9b::/96"].map((text) => parseCidr(text)!);

/** The IPv4 address an IPv6 address stands for, if it embeds one. */
function embeddedV4(ip: ParsedIp): ParsedIp | null {
  if (ip.family !== 6 || !EMBEDDING_V4.some((block) => cidrContains(block, ip))) return null;
  return { family: 4, value: ip.value & 0xffffffffn };
}

/** The address itself and, for IPv4-in-IPv6 forms, the IPv4 address it reaches. */
function facesOf(ip: ParsedIp): ParsedIp[] {
  const v4 = embeddedV4(ip);
  return v4 === null ? [ip] : [ip, v4];
}

/** Builds the policy from the `crawler` config section; throws when an `allowed_cidrs` entry is not a CIDR. */
export function policyFromCrawlerConfig(crawler: Pick<Config["crawler"], "allow_private_networks" | "allowed_cidrs">): AddressPolicy {
  for (const entry of crawler.allowed_cidrs) {
    // The config schema only checks the shape; a block that cannot match anything must not pass silently.
    if (parseCidr(entry) === null) {
      throw new Error(`crawler.allowed_cidrs: ${JSON.stringify(entry)} is not a valid CIDR`);
    }
  }
  return { allowPrivateNetworks: crawler.allow_private_networks, allowedCidrs: [...crawler.allowed_cidrs] };
}

/** True for any non-public address (see PRIVATE_BLOCKS); text that does not parse as an IP counts as private. */
export function isPrivateAddress(ip: string): boolean {
  return addressOf(ip).private;
}

/** True when the policy lets linkpatrol connect to this address. */
export function isAddressAllowed(ip: string, policy: AddressPolicy): boolean {
  const address = addressOf(ip);
  if (address.parsed === null) return false;
  if (!address.private || policy.allowPrivateNetworks) return true;
  const faces = facesOf(address.parsed);
  return policy.allowedCidrs.some((text) => {
    const block = blockOf(text);
    return block !== null && faces.some((face) => cidrContains(block, face));
  });
}

/** A crawl asks about the same few addresses for every request, and parsing one costs microseconds of bigint work. */
const KEPT = 1024;
const addresses = new Map<string, { parsed: ParsedIp | null; private: boolean }>();
const blocks = new Map<string, Cidr | null>();

function addressOf(ip: string): { parsed: ParsedIp | null; private: boolean } {
  let address = addresses.get(ip);
  if (address === undefined) {
    const parsed = parseIp(ip);
    address = { parsed, private: parsed === null || PRIVATE_BLOCKS.some((block) => cidrContains(block, embeddedV4(parsed) ?? parsed)) };
    if (addresses.size >= KEPT) addresses.clear();
    addresses.set(ip, address);
  }
  return address;
}

/** An allowed_cidrs entry parsed once (they come from the config and check's flags: a handful). */
function blockOf(text: string): Cidr | null {
  let block = blocks.get(text);
  if (block === undefined) {
    block = parseCidr(text);
    if (blocks.size >= KEPT) blocks.clear();
    blocks.set(text, block);
  }
  return block;
}
