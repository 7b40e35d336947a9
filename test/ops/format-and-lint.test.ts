import { expect, test } from "bun:test";
import { join } from "node:path";

/**
 * The tree stays formatted and linted (biome.json): `biome ci` checks both without writing, so `npm test`, and
 * with it .ci/run, fails on a file left unformatted or a finding left unfixed. `npx biome check --write .`
 * fixes what it can.
 */
test("biome ci: every source file formatted, no lint finding", () => {
  const root = join(import.meta.dir, "../..");
  const run = Bun.spawnSync([join(root, "node_modules/.bin/biome"), "ci", "--colors=off", "."], { cwd: root, stdout: "pipe", stderr: "pipe", timeout: 60_000 });
  const output = `${run.stdout.toString()}${run.stderr.toString()}`;
  expect({ exitCode: run.exitCode, output: run.exitCode === 0 ? "" : output.slice(0, 4000) }).toEqual({ exitCode: 0, output: "" });
}, 60_000);
