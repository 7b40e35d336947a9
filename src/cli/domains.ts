import { DomainNotVerifiedError } from "../core/errors.ts";
import type { IgnoreRules } from "../core/ignore-rules.ts";
import type { DomainView } from "../services/domain-view.ts";
import type { DomainChangeInput } from "../services/domains.service.ts";
import { readSiteInput } from "../services/site-input.ts";
import { withRuntime } from "./context.ts";
import { askYesNo } from "./confirm.ts";
import { err, EXIT_FAILED, EXIT_OK, out, parseCommandArgs, rejectExtraArgs, UsageError } from "./usage.ts";

const DOMAINS_HELP = `Usage: linkpatrol domains <add|list|verify|edit|delete> [options]

  domains add SITE [--root-url URL] [--verified]   register a domain. SITE is a host (optionally :port; its start
                                                   page is then https://SITE/) or a URL, whose scheme and path
                                                   become the start page; --verified: the operator vouches for
                                                   it, no check needed
  domains list [--json]                            list domains
  domains verify ID                                run the DNS TXT, HTTP file and meta tag checks;
                                                   exit 1 with each method's reason when none passes
  domains edit ID [--root-url URL] [--exclude RE]... [--mute RE]... [--clear-rules]
                                                   change the start page (same host and port) or the ignore
                                                   rules: --exclude URLs never checked, --mute URLs checked but
                                                   never counted broken (regular expressions, as check --exclude;
                                                   each flag given replaces its list)
  domains delete ID [--yes]                        delete the domain with all its crawls and results; asks
                                                   first on a terminal, needs --yes otherwise

Options: --config FILE, --json, --help`;

/** `linkpatrol domains ...` */
export async function domainsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    "root-url": { type: "string" },
    verified: { type: "boolean" },
    json: { type: "boolean" },
    exclude: { type: "string", multiple: true },
    mute: { type: "string", multiple: true },
    "clear-rules": { type: "boolean" },
    yes: { type: "boolean", short: "y" },
  });
  const [action, target, ...extra] = positionals;
  if (values.help) {
    out(DOMAINS_HELP);
    return EXIT_OK;
  }
  if (action === undefined) throw new UsageError("domains needs an action: add, list, verify, edit or delete");
  rejectExtraArgs(extra);
  if (action === "delete" && target !== undefined && !values.yes && !process.stdin.isTTY) {
    // Refused before the store is opened: a script must say it means it.
    throw new UsageError("domains delete asks for confirmation, and stdin is not a terminal: add --yes to delete without asking");
  }
  return withRuntime(values.config, async ({ domains, crawls }) => {
    switch (action) {
      case "add": {
        if (!target) throw new UsageError("domains add needs a host or a URL");
        const site = readSiteInput(target);
        const rootUrl = values["root-url"] ?? (site.kind === "url" ? site.rootUrl : new URL(site.path, `https://${site.name}/`).href);
        const domain = await domains.add({ name: site.name, root_url: rootUrl }, values.verified ?? false);
        if (values.json) out(JSON.stringify(domain));
        else printAdded(domain);
        return EXIT_OK;
      }
      case "list": {
        rejectExtraArgs(target === undefined ? [] : [target]);
        const { items } = await domains.list(1, Number.MAX_SAFE_INTEGER);
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
          for (const d of error.details ?? []) err(`  ${d.method ?? d.field}: ${d.message}`);
          return EXIT_FAILED;
        }
      }
      case "edit": {
        if (!target) throw new UsageError("domains edit needs a domain ID");
        const changes = editChanges(values, (await domains.get(target)).ignore_rules);
        if (Object.keys(changes).length === 0) throw new UsageError("domains edit needs --root-url, --exclude, --mute or --clear-rules");
        const domain = await domains.edit(target, changes);
        if (values.json) out(JSON.stringify(domain));
        else printRules(domain);
        return EXIT_OK;
      }
      case "delete": {
        if (!target) throw new UsageError("domains delete needs a domain ID");
        const domain = await domains.get(target);
        const history = (await crawls.list({ domainId: domain.id }, 1, 1)).total;
        if (!values.yes) {
          const question = `Delete ${domain.name} (${domain.id}) and its ${history} crawl${history === 1 ? "" : "s"} with all their results? This cannot be undone.`;
          if (!(await askYesNo(question))) {
            err("nothing deleted");
            return EXIT_FAILED;
          }
        }
        await domains.delete(domain.id);
        out(`deleted ${domain.name} (${domain.id}) and ${history} crawl${history === 1 ? "" : "s"}`);
        return EXIT_OK;
      }
      default:
        throw new UsageError(`unknown domains action: ${action}`);
    }
  });
}

/** The changes `domains edit` asks for: each list flag given replaces that list, the other stays; --clear-rules empties both. */
function editChanges(
  values: { "root-url"?: string; exclude?: string[]; mute?: string[]; "clear-rules"?: boolean },
  current: IgnoreRules,
): DomainChangeInput & { root_url?: string } {
  const listsGiven = values.exclude !== undefined || values.mute !== undefined;
  if (values["clear-rules"] && listsGiven) throw new UsageError("--clear-rules removes every rule: give it without --exclude or --mute");
  return {
    ...(values["root-url"] !== undefined && { root_url: values["root-url"] }),
    ...(values["clear-rules"] && { ignore_rules: null }),
    ...(listsGiven && { ignore_rules: { exclude: values.exclude ?? current.exclude, mute: values.mute ?? current.mute } }),
  };
}

function printAdded(d: DomainView): void {
  const m = d.verification.methods;
  out(`added ${d.name} (${d.id})${d.verified ? ", verified by the operator" : ""}; start page ${d.root_url}`);
  if (d.verified) return;
  out(`Prove you control it with any one of these, then run: linkpatrol domains verify ${d.id}`);
  out(`  DNS TXT    ${m.dns_txt.name}  "${m.dns_txt.value}"`);
  out(`  HTTP file  ${m.http_file.url}  containing ${m.http_file.body}`);
  out(`  meta tag   ${m.meta_tag.html}  in the <head> of ${d.root_url}`);
}

function printRules(d: DomainView): void {
  out(`${d.name} (${d.id}): start page ${d.root_url}`);
  out(`  not checked (exclude): ${d.ignore_rules.exclude.length === 0 ? "none" : d.ignore_rules.exclude.join("  ")}`);
  out(`  never counted broken (mute): ${d.ignore_rules.mute.length === 0 ? "none" : d.ignore_rules.mute.join("  ")}`);
}
