import { DomainNotVerifiedError } from "../core/errors.ts";
import type { DomainView } from "../services/domain-view.ts";
import { withRuntime } from "./context.ts";
import { err, EXIT_FAILED, EXIT_OK, out, parseCommandArgs, rejectExtraArgs, UsageError } from "./usage.ts";

export const DOMAINS_HELP = `Usage: linkpatrol domains <add|list|verify> [options]

  domains add NAME [--root-url URL] [--verified]   register a domain (NAME is a host, optionally :port);
                                                   --verified: the operator vouches for it, no check needed
  domains list [--json]                            list domains
  domains verify ID                                run the DNS TXT, HTTP file and meta tag checks;
                                                   exit 1 with each method's reason when none passes

Options: --config FILE, --json, --help`;

/** `linkpatrol domains ...` */
export async function domainsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    "root-url": { type: "string" },
    verified: { type: "boolean" },
    json: { type: "boolean" },
  });
  const [action, target, ...extra] = positionals;
  if (values.help) {
    out(DOMAINS_HELP);
    return EXIT_OK;
  }
  if (action === undefined) throw new UsageError("domains needs an action: add, list or verify");
  rejectExtraArgs(extra);
  return withRuntime(values.config, async ({ domains }) => {
    switch (action) {
      case "add": {
        if (!target) throw new UsageError("domains add needs a NAME");
        const domain = await domains.add({ name: target, root_url: values["root-url"] }, values.verified ?? false);
        if (values.json) out(JSON.stringify(domain));
        else printAdded(domain);
        return EXIT_OK;
      }
      case "list": {
        rejectExtraArgs(target === undefined ? [] : [target]);
        const { items } = domains.list(1, Number.MAX_SAFE_INTEGER);
        if (values.json) out(JSON.stringify(items));
        else for (const d of items) out(`${d.id}  ${d.name}  ${d.verified ? `verified (${d.verified_by})` : "unverified"}  ${d.root_url}`);
        return EXIT_OK;
      }
      case "verify": {
        if (!target) throw new UsageError("domains verify needs a domain ID");
        try {
          const domain = await domains.verify(target);
          out(values.json ? JSON.stringify(domain) : `${domain.name} is verified (${domain.verified_by})`);
          return EXIT_OK;
        } catch (error) {
          if (!(error instanceof DomainNotVerifiedError)) throw error;
          err(`${error.message}:`);
          for (const d of error.details ?? []) err(`  ${d.method}: ${d.message}`);
          return EXIT_FAILED;
        }
      }
      default:
        throw new UsageError(`unknown domains action: ${action}`);
    }
  });
}

function printAdded(d: DomainView): void {
  const m = d.verification.methods;
  out(`added ${d.name} (${d.id})${d.verified ? ", verified by the operator" : ""}`);
  if (d.verified) return;
  out("Prove you control it with any one of these, then run: linkpatrol domains verify " + d.id);
  out(`  DNS TXT    ${m.dns_txt.name}  "${m.dns_txt.value}"`);
  out(`  HTTP file  ${m.http_file.url}  containing ${m.http_file.body}`);
  out(`  meta tag   ${m.meta_tag.html}  in the <head> of ${d.root_url}`);
}
