import { redactPassword } from "../core/redact.ts";
import { loadConfig } from "../config/load.ts";
import { configWarnings } from "../config/warnings.ts";
import { EXIT_OK, out, parseCommandArgs, rejectExtraArgs, UsageError } from "./usage.ts";

const CONFIG_HELP = `Usage: linkpatrol config check [FILE] [--print]

Validates the configuration (FILE, else --config, else ./linkpatrol.yaml, else built-in defaults) with the
LINKPATROL_* environment overrides applied. Prints "ok" or each problem with its key path; exit 2 on problems.
Settings that are valid but work against each other are printed as warnings (exit 0).
--print also prints the effective configuration as JSON (durations in milliseconds; secrets hidden).`;

/** `linkpatrol config check` */
export function configCommand(args: string[]): number {
  const { values, positionals } = parseCommandArgs(args, { print: { type: "boolean" } });
  const [action, file, ...extra] = positionals;
  if (values.help) {
    out(CONFIG_HELP);
    return EXIT_OK;
  }
  if (action !== "check") throw new UsageError(action === undefined ? "config needs an action: check" : `unknown config action: ${action}`);
  rejectExtraArgs(extra);
  const loaded = loadConfig({ file: file ?? values.config });
  out(`ok: ${loaded.file ?? "built-in defaults"}`);
  for (const warning of configWarnings(loaded.config)) out(`warning: ${warning}`);
  if (values.print) {
    const { auth, crawler, storage } = loaded.config;
    // Header values are often credentials (a staging site's Authorization): their names show, their values do not.
    const headers = Object.fromEntries(Object.keys(crawler.headers).map((name) => [name, "(set)"]));
    const url = storage.url === null ? null : redactPassword(new URL(storage.url)).href;
    const shown = {
      ...loaded.config,
      storage: { ...storage, url },
      auth: { ...auth, bootstrap_key: auth.bootstrap_key ? "(set)" : null },
      crawler: { ...crawler, headers },
    };
    out(JSON.stringify(shown, null, 2));
  }
  return EXIT_OK;
}
