import { VERSION } from "../core/version.ts";
import { EXIT_OK, out, parseCommandArgs, rejectExtraArgs } from "./usage.ts";

const VERSION_HELP = "Usage: linkpatrol version\n\nPrints the version of this binary.";

/** `linkpatrol version` */
export function versionCommand(args: string[]): number {
  const { values, positionals } = parseCommandArgs(args, {});
  if (values.help) {
    out(VERSION_HELP);
    return EXIT_OK;
  }
  rejectExtraArgs(positionals);
  out(VERSION);
  return EXIT_OK;
}
