/**
 * Ctrl-C or a CI cancel must not leave servers and crawlers behind: nginx runs in the foreground as our
 * child, and a tool runs under /usr/bin/time (our child's child), which outlive us when only this process
 * gets the signal. So on SIGINT/SIGTERM every descendant is killed by its pid (read from /proc, deepest
 * first), the work dir removed, and the process exits 130.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";

function children(pid: number): number[] {
  const pids: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const list = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      if (list !== "") pids.push(...list.split(/\s+/).map(Number));
    }
  } catch {
    // gone already
  }
  return pids;
}

function descendants(pid: number): number[] {
  return children(pid).flatMap((child) => [...descendants(child), child]);
}

/** From now on, an interrupt kills this process's descendants and removes `workDir` before exiting. */
export function cleanUpOnInterrupt(workDir: string): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      for (const pid of descendants(process.pid)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // exited meanwhile
        }
      }
      rmSync(workDir, { recursive: true, force: true });
      process.exit(130);
    });
  }
}
