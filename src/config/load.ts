import { existsSync, readFileSync } from "node:fs";
import { parse as parseYaml, YAMLParseError } from "yaml";
import type { z } from "zod";
import { configSchema, SECTION_SCHEMAS, type Config, type ConfigSection } from "./schema.ts";

/**
 * Loads the configuration: one YAML file (explicit path, else ./linkpatrol.yaml when present, else
 * built-in defaults), then `LINKPATROL_<SECTION>_<KEY>` environment overrides, then one zod parse.
 * Every problem names where it came from (file or variable), the key path and the reason.
 */

const DEFAULT_CONFIG_FILE = "./linkpatrol.yaml";
const ENV_PREFIX = "LINKPATROL_";
/** Variables with the prefix that are not overrides. */
const ENV_RESERVED = new Set(["LINKPATROL_CONFIG"]);

/** Start-up must stop: the config cannot be used. `problems` are ready-to-print lines. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
    this.name = "ConfigError";
  }
}

interface LoadedConfig {
  config: Config;
  /** The file read, or null when built-in defaults were used. */
  file: string | null;
}

type RawTree = Record<string, unknown>;

/** Reads, overrides and validates the configuration; throws ConfigError with every problem found. */
export function loadConfig(options: { file?: string; env?: Record<string, string | undefined> } = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const file = options.file ?? env.LINKPATROL_CONFIG ?? (existsSync(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : null);
  const tree = file === null ? {} : readYamlFile(file);
  const fromEnv = applyEnvOverrides(tree, env);

  const result = configSchema.safeParse(tree);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => describeIssue(issue, file, fromEnv)));
  }
  return { config: result.data, file };
}

function readYamlFile(file: string): RawTree {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "file not found" : (error as Error).message;
    throw new ConfigError([`${file}: cannot read config: ${reason}`]);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text, { uniqueKeys: true });
  } catch (error) {
    if (error instanceof YAMLParseError) {
      const where = error.linePos?.[0] ? `line ${error.linePos[0].line}, column ${error.linePos[0].col}` : "";
      throw new ConfigError([`${file}: ${where ? `${where}: ` : ""}invalid YAML: ${error.message.split("\n")[0]}`]);
    }
    throw error;
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigError([`${file}: the top level must be a mapping of sections (server, storage, ...)`]);
  }
  // A section whose keys are all commented out reads as null: it means "all defaults".
  return Object.fromEntries(Object.entries(parsed).map(([section, value]) => [section, value ?? {}]));
}

/** Writes each override into the tree; returns which key path came from which variable. */
function applyEnvOverrides(tree: RawTree, env: Record<string, string | undefined>): Map<string, string> {
  const origins = new Map<string, string>();
  const problems: string[] = [];
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || ENV_RESERVED.has(name) || raw === undefined) continue;
    const target = resolveEnvName(name);
    if (!target) {
      problems.push(`environment ${name}: no such config key (expected ${ENV_PREFIX}<SECTION>_<KEY>, e.g. LINKPATROL_SERVER_PORT)`);
      continue;
    }
    const [section, key] = target;
    tree[section] ??= {};
    const sectionTree = tree[section];
    if (typeof sectionTree !== "object" || sectionTree === null || Array.isArray(sectionTree)) {
      problems.push(`environment ${name}: section ${section} in the file is not a mapping`);
      continue;
    }
    (sectionTree as RawTree)[key] = envValue(raw, SECTION_SCHEMAS[section].shape[key as never] as z.ZodType);
    origins.set(`${section}.${key}`, name);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return origins;
}

function resolveEnvName(name: string): [ConfigSection, string] | null {
  const rest = name.slice(ENV_PREFIX.length).toLowerCase();
  for (const section of Object.keys(SECTION_SCHEMAS) as ConfigSection[]) {
    if (!rest.startsWith(`${section}_`)) continue;
    const key = rest.slice(section.length + 1);
    if (Object.hasOwn(SECTION_SCHEMAS[section].shape, key)) return [section, key];
  }
  return null;
}

/** Text stays text where the key accepts text; otherwise it is read as a YAML scalar or flow list. */
function envValue(raw: string, field: z.ZodType): unknown {
  if (field.safeParse(raw).success) return raw;
  if (raw.trim() === "") return raw;
  try {
    return parseYaml(raw);
  } catch {
    return raw;
  }
}

function describeIssue(issue: z.core.$ZodIssue, file: string | null, fromEnv: Map<string, string>): string {
  const path = issue.path.map(String);
  const keys = issue.code === "unrecognized_keys" ? issue.keys.map((k) => [...path, k].join(".")) : [path.join(".")];
  const where = fromEnv.get(path.slice(0, 2).join("."));
  const source = where ? `environment ${where}` : (file ?? "built-in defaults");
  const reason = issue.code === "unrecognized_keys" ? "unknown key" : issue.message;
  return keys.map((key) => `${source}: ${key || "(top level)"}: ${reason}`).join("\n");
}
