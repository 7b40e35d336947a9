import { ipLiteral, type Resolve, type ResolvedAddress } from "../../src/net/resolve.ts";

/**
 * A `Resolve` that answers from a fixed table instead of DNS, so made-up names can point at loopback servers
 * (or at addresses the policy must refuse). An IP literal answers itself; a name in the table answers its
 * address(es), each with its own family; any other name rejects with an Error whose `code` is ENOTFOUND.
 * `calls` records every hostname asked, in order, IP literals included.
 */
export function tableResolver(table: Record<string, string | string[]>): Resolve & { calls: string[] } {
  const answers = new Map<string, ResolvedAddress[]>();
  for (const [name, entry] of Object.entries(table)) {
    const addresses = typeof entry === "string" ? [entry] : entry;
    answers.set(
      name,
      addresses.map((address) => {
        const literal = ipLiteral(address);
        if (literal === null) throw new Error(`tableResolver: ${name} maps to ${address}, which is not an IP address`);
        return literal;
      }),
    );
  }
  const calls: string[] = [];
  const resolve: Resolve = async (hostname) => {
    calls.push(hostname);
    const literal = ipLiteral(hostname);
    if (literal !== null) return [literal];
    const found = answers.get(hostname);
    if (found === undefined) throw Object.assign(new Error(`no such name ${hostname}`), { code: "ENOTFOUND" });
    return found.map((answer) => ({ ...answer }));
  };
  return Object.assign(resolve, { calls });
}
