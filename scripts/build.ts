/**
 * Builds the single executable: `bun build --compile` bundles the code, its dependencies and the embedded
 * migrations with the Bun runtime into dist/linkpatrol (host platform only; cross targets need a download).
 */
import { join } from "node:path";

const root = join(import.meta.dir, "..");

/** Compiles src/main.ts to `outfile`; throws with bun's output when the build fails. */
export function buildExecutable(outfile = join(root, "dist", "linkpatrol")): string {
  const result = Bun.spawnSync({
    // The crawl, page parser and backup workers are entrypoints of their own: `new Worker()` in a compiled binary loads them
    // from the bundle.
    cmd: [
      process.execPath,
      "build",
      "--compile",
      "--minify",
      "--sourcemap",
      join(root, "src", "main.ts"),
      join(root, "src", "crawler", "crawl-worker.ts"),
      join(root, "src", "crawler", "page-parser-worker.ts"),
      join(root, "src", "store", "backup-worker.ts"),
      "--outfile",
      outfile,
    ],
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (result.exitCode !== 0) {
    throw new Error(`bun build --compile failed (${result.exitCode}):\n${result.stdout.toString()}${result.stderr.toString()}`);
  }
  return outfile;
}

if (import.meta.main) {
  const outfile = buildExecutable(process.argv[2]);
  console.log(`built ${outfile} (${(Bun.file(outfile).size / 1024 / 1024).toFixed(1)} MiB)`);
}
