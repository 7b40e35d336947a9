import { SCOPES } from "../core/scopes.ts";
import { withRuntime } from "./context.ts";
import { EXIT_OK, out, parseCommandArgs, rejectExtraArgs, UsageError } from "./usage.ts";

const KEYS_HELP = `Usage: linkpatrol keys <create|list|revoke> [options]

  keys create --name NAME [--scopes a,b]   create a key and print it once (default scope: admin)
  keys list [--json]                        list keys (never the secret)
  keys revoke ID                            revoke a key; requests with it get 401 from then on

Scopes: ${SCOPES.join(", ")}
Options: --config FILE, --help`;

/** `linkpatrol keys ...` */
export async function keysCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    name: { type: "string" },
    scopes: { type: "string" },
    json: { type: "boolean" },
  });
  const [action, ...rest] = positionals;
  if (values.help) {
    out(KEYS_HELP);
    return EXIT_OK;
  }
  if (action === undefined) throw new UsageError("keys needs an action: create, list or revoke");
  return withRuntime(values.config, async ({ keys }) => {
    switch (action) {
      case "create": {
        rejectExtraArgs(rest);
        if (!values.name) throw new UsageError("keys create needs --name NAME");
        // Only an omitted --scopes means the default: an empty list given on purpose is refused by the service,
        // never widened to admin.
        const scopes =
          values.scopes === undefined
            ? ["admin"]
            : values.scopes
                .split(",")
                .map((s) => s.trim())
                .filter(Boolean);
        const { key, secret } = await keys.create(values.name, scopes);
        if (values.json) out(JSON.stringify({ ...key, key: secret }));
        else {
          out(secret);
          process.stderr.write(`created key ${key.id} (${key.name}; scopes: ${key.scopes.join(",")}); it is shown only now\n`);
        }
        return EXIT_OK;
      }
      case "list": {
        rejectExtraArgs(rest);
        const list = await keys.list();
        if (values.json) out(JSON.stringify(list));
        else
          for (const k of list) {
            const state = k.revoked_at ? `revoked ${k.revoked_at}` : "active";
            out(`${k.id}  ${k.prefix}…  ${k.name}  [${k.scopes.join(",")}]  ${state}  last used ${k.last_used_at ?? "never"}`);
          }
        return EXIT_OK;
      }
      case "revoke": {
        const [id, ...extra] = rest;
        if (!id || extra.length > 0) throw new UsageError("keys revoke needs exactly one key ID");
        const key = await keys.revoke(id);
        out(`revoked ${key.id} (${key.name})`);
        return EXIT_OK;
      }
      default:
        throw new UsageError(`unknown keys action: ${action}`);
    }
  });
}
