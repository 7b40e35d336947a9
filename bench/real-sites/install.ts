/**
 * Installs the Debian packages the comparison needs when they are missing, without ever asking: CI runs
 * this with no terminal, so apt must not prompt (DEBIAN_FRONTEND=noninteractive, -y, stdin closed) and
 * recommends stay out (they would pull in a desktop's worth of packages for the doc sets).
 */

/** True when dpkg says `pkg` is installed. */
function installed(pkg: string): boolean {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax, not a template
  const res = Bun.spawnSync(["dpkg-query", "-W", "-f=${Status}", pkg], { stdout: "pipe", stderr: "ignore" });
  return res.exitCode === 0 && res.stdout.toString().includes("install ok installed");
}

function run(cmd: string[]): void {
  // Root runs apt directly; anyone else needs password-less sudo (-n: fail instead of prompting).
  const full = process.getuid?.() === 0 ? cmd : ["sudo", "-n", ...cmd];
  console.error(`$ ${full.join(" ")}`);
  const res = Bun.spawnSync(full, {
    stdin: "ignore",
    stdout: "inherit",
    stderr: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  if (res.exitCode !== 0) throw new Error(`${full.join(" ")} exited ${res.exitCode}`);
}

/** Installs whichever of `packages` are missing; returns the ones it installed. */
export function ensurePackages(packages: readonly string[]): string[] {
  const missing = packages.filter((pkg) => !installed(pkg));
  if (missing.length === 0) return [];
  run(["apt-get", "update", "-q"]);
  run(["apt-get", "install", "-y", "-q", "--no-install-recommends", ...missing]);
  return missing;
}
