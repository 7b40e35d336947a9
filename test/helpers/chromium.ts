import { existsSync } from "node:fs";
import type { Browser } from "playwright-core";

/**
 * Debian's Chromium for the dashboard's browser tests, started headless with the flags this machine needs (no
 * sandbox as root, no GPU, no background connections, which the closed network refuses). Never a browser
 * downloaded by playwright. Missing: the tests skip saying so, or fail under CI=true (.ci/run installs it).
 */

export const CHROMIUM = "/usr/bin/chromium";
export const HAS_CHROMIUM = existsSync(CHROMIUM);

if (!HAS_CHROMIUM && process.env.CI === "true") throw new Error(`${CHROMIUM} is missing under CI=true: .ci/run must install chromium`);
if (!HAS_CHROMIUM) console.warn(`browser tests SKIPPED: ${CHROMIUM} is missing (apt-get install chromium)`);

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({ executablePath: CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
}
