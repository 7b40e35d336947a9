/**
 * Builds the single executable: `bun build --compile` bundles the code, its dependencies and the embedded
 * migrations with the Bun runtime into dist/linkpatrol (host platform only; cross targets need a download).
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

const root = join(import.meta.dir, "..");

/** Compiles src/main.ts to `outfile`; throws with bun's output when the build fails. */
export function buildExecutable(outfile = join(root, "dist", "linkpatrol")): string {
  const target = resolve(root, outfile);
  // bun writes a source map per chunk beside the executable, under hashed names that would pile up build after
  // build; the executable carries its own maps, so it is built in a scratch directory and only it is kept.
  mkdirSync(dirname(target), { recursive: true });
  const scratch = mkdtempSync(join(dirname(target), ".build-"));
  try {
    compile(join(scratch, basename(target)));
    renameSync(join(scratch, basename(target)), target);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return outfile;
}

/** Runs `bun build --compile` writing the executable (and its by-products) to `outfile`'s directory. */
function compile(outfile: string): void {
  const result = Bun.spawnSync({
    // The crawl and backup workers are entrypoints of their own: `new Worker()` in a compiled binary loads them
    // from the bundle. --splitting keeps each module that main.ts imports lazily (a command, the API) in a chunk
    // of its own, read only when imported: in one bundle, every command paid to parse all of them.
    cmd: [
      process.execPath,
      "build",
      "--compile",
      "--minify",
      "--sourcemap",
      "--splitting",
      // A compiled Bun program would otherwise read bunfig.toml and .env from whatever directory it is started in:
      // a checked-out repository's bunfig.toml `preload` ran its code inside `linkpatrol check`, and its .env set
      // LINKPATROL_* keys. Configuration comes from the config file and the process environment only.
      "--no-compile-autoload-bunfig",
      "--no-compile-autoload-dotenv",
      join(root, "src", "main.ts"),
      join(root, "src", "crawler", "crawl-worker.ts"),
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
}

if (import.meta.main) {
  const outfile = buildExecutable(process.argv[2]);
  console.log(`built ${outfile} (${(Bun.file(outfile).size / 1024 / 1024).toFixed(1)} MiB)`);
}
