/**
 * Compiles linkpatrol to a path under /tmp with scripts/build.ts. src/ may be mid-edit by someone else
 * while this runs, so a failed build is retried after a minute, a few times, before giving up: a
 * half-saved file should delay the comparison, not stop it.
 */
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const ATTEMPTS = 5;
const WAIT_MS = 60_000;

/** Builds the executable at `outfile`; throws with the last build output after ATTEMPTS failures. */
export async function buildLinkpatrol(outfile: string): Promise<string> {
  let output = "";
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const res = Bun.spawnSync([process.execPath, join(ROOT, "scripts", "build.ts"), outfile], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    if (res.exitCode === 0) return outfile;
    output = `${res.stdout.toString()}${res.stderr.toString()}`.trim();
    if (attempt < ATTEMPTS) {
      console.error(`build failed (attempt ${attempt}/${ATTEMPTS}), retrying in ${WAIT_MS / 1000} s:\n${output.split("\n").slice(-5).join("\n")}`);
      await Bun.sleep(WAIT_MS);
    }
  }
  throw new Error(`linkpatrol did not build after ${ATTEMPTS} attempts:\n${output}`);
}
