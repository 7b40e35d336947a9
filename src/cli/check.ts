import { CRAWL_OPTION_ROWS, type CrawlOptionFlag } from "../core/crawl-option-table.ts";
import { warmHttpClient } from "../net/warm-client.ts";
import { EXIT_OK, out, parseCommandArgs } from "./usage.ts";

/**
 * `linkpatrol check`: its help and flags. What runs a check (check-run.ts: the flags' meaning, the store, the
 * crawler, the config schema) is loaded only when one is asked for, so `--help` costs no more than `version`.
 */

const CHECK_HELP = `Usage: linkpatrol check URL [options]

Crawls the site at URL once, in this process (no server, no config file, a temporary store), and reports its
links. Exit code: 0 nothing broken, 1 broken links found or the start page itself cannot be crawled (broken,
unreachable, redirected off-site, not HTML, disallowed by robots.txt), 2 usage or runtime error.

What is checked (anchors always):
${optionHelp()}
Crawling:
  --concurrency N      requests in flight (also per host; default 16)
  --max-pages N        pages parsed at most (default 10000)     --max-duration D   give up after D (default 1h)
  --max-links-per-page N   links taken from one page at most (default 50000; more: the page is reported cut)
  --timeout D          connect, header and body timeout each (e.g. 10s, 500ms; default 10s/15s/30s)
  --accept-status L    statuses never broken, e.g. 403,999       --user-agent UA
  --header "N: V"      extra request header for the site (repeatable; user:password@ in URL: Basic auth)
  --no-robots          ignore robots.txt
  --allow-private      allow private/loopback addresses (needed for localhost sites); for a start URL on such an
                       address, that address only (other private addresses need --allow-cidr)
  --allow-cidr CIDR    also allow this private block, e.g. 127.0.0.2/32 or 10.1.0.0/16 (repeatable)
Reporting:
  --include RE / --exclude RE   report only links whose URL matches / does not match (repeatable)
  --format text|json|jsonl|csv|junit|markdown (default text)   --output FILE (default stdout)
                       (jsonl: one JSON object per line, the summary last; the one to use for big sites)
A progress line is shown on stderr when it is a terminal.`;

/** The crawl options' lines of the help, from the option table; `--all` after the options it turns on. */
function optionHelp(): string {
  const line = (flag: string, help: string) => `  ${`--${flag}`.padEnd(21)}${help}`;
  const inAll = CRAWL_OPTION_ROWS.filter(([, row]) => row.inAll);
  return [
    ...inAll.map(([, row]) => line(row.flag, row.help)),
    line("all", `all ${inAll.length} above (not the options below)`),
    ...CRAWL_OPTION_ROWS.filter(([, row]) => !row.inAll).map(([, row]) => line(row.flag, row.help)),
  ].join("\n");
}

const OPTION_FLAGS = Object.fromEntries(CRAWL_OPTION_ROWS.map(([, row]) => [row.flag, { type: "boolean" }])) as Record<CrawlOptionFlag, { type: "boolean" }>;

export const CHECK_OPTIONS = {
  ...OPTION_FLAGS,
  all: { type: "boolean" },
  concurrency: { type: "string" },
  "max-pages": { type: "string" },
  "max-links-per-page": { type: "string" },
  "max-duration": { type: "string" },
  timeout: { type: "string" },
  "accept-status": { type: "string" },
  "user-agent": { type: "string" },
  header: { type: "string", multiple: true },
  "no-robots": { type: "boolean" },
  "allow-private": { type: "boolean" },
  "allow-cidr": { type: "string", multiple: true },
  include: { type: "string", multiple: true },
  exclude: { type: "string", multiple: true },
  format: { type: "string" },
  output: { type: "string" },
} as const;

/** `linkpatrol check URL`: one crawl in the terminal. */
export async function checkCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, CHECK_OPTIONS);
  if (values.help) {
    out(CHECK_HELP);
    return EXIT_OK;
  }
  warmHttpClient();
  const { runCheck } = await import("./check-run.ts");
  return runCheck(values, positionals);
}
