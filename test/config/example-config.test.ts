import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { loadConfig } from "../../src/config/load.ts";
import { configSchema, SECTION_SCHEMAS } from "../../src/config/schema.ts";

const examplePath = join(import.meta.dir, "..", "..", "deploy", "linkpatrol.example.yaml");

describe("deploy/linkpatrol.example.yaml", () => {
  test("is valid and equals the built-in defaults", () => {
    expect(loadConfig({ file: examplePath, env: {} }).config).toEqual(configSchema.parse({}));
  });

  test("documents every key of every section", () => {
    const example = parse(readFileSync(examplePath, "utf8")) as Record<string, Record<string, unknown>>;
    for (const [section, schema] of Object.entries(SECTION_SCHEMAS)) {
      expect(Object.keys(example[section] ?? {}).sort()).toEqual(Object.keys(schema.shape).sort());
    }
  });
});
