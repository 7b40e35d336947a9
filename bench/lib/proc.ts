/**
 * Measuring processes: /proc readers for a long-running child (the service), and `runMeasured` for a one-shot
 * command (linkpatrol check, linkinator, wget2): wall time, CPU and peak RSS (wait4's rusage as GNU
 * /usr/bin/time reports it; without it, CPU from Bun's `resourceUsage()` and the peak from VmHWM sampled every
 * 100 ms), bounded by a timeout (SIGTERM, then SIGKILL 5 s later).
 */
import { existsSync, readFileSync, rmSync } from "node:fs";

export function procStatusKiB(pid: number, field: "VmRSS" | "VmHWM"): number | null {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m === null ? null : Number(m[1]);
  } catch {
    return null;
  }
}

const CLK_TCK = (() => {
  try {
    const out = Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim();
    return Number(out) > 0 ? Number(out) : 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of the whole process (all threads), in seconds. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return null;
  }
}

export const mib = (kib: number | null) => (kib === null ? null : Math.round((kib / 1024) * 10) / 10);
export const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;

export function tail(path: string, lines = 20): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

/** The first line a command prints for `args` (a version string), or null. */
export function firstLine(cmd: string[]): string | null {
  try {
    const res = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
    const text = res.stdout.toString().trim() || res.stderr.toString().trim();
    return res.exitCode === 0 && text ? text.split("\n")[0]!.trim() : null;
  } catch {
    return null;
  }
}

export interface Measured {
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  wall_s: number;
  cpu_user_s: number | null;
  cpu_system_s: number | null;
  cpu_s: number | null;
  /** Peak RSS of the command, MiB (see `rss_source`). */
  peak_rss_mib: number | null;
  /** "gnu-time": wait4's maxRSS as /usr/bin/time reports it; "vmhwm-sampled": VmHWM read every 100 ms. */
  rss_source: "gnu-time" | "vmhwm-sampled";
  /** Highest VmRSS seen while sampling every 100 ms, MiB. */
  rss_peak_sampled_mib: number | null;
}

export interface RunOptions {
  cwd: string;
  timeoutS: number;
  /** Files for the child's stdout and stderr; discarded when not given. */
  stdoutPath?: string;
  stderrPath?: string;
  env?: Record<string, string>;
}

/**
 * GNU time, when installed. Needed for an honest peak RSS: a child spawned by Bun starts as a fork of this
 * (large) process, and Linux carries the pre-exec high-water mark into the child's rusage maxRSS, so Bun's
 * `resourceUsage().maxRSS` reports at least this process's RSS. /usr/bin/time is itself such a child, but
 * its own child is forked from a small process, so the maxRSS it reports is the command's own.
 */
const GNU_TIME = (() => {
  try {
    return Bun.spawnSync(["/usr/bin/time", "-f", "%M", "-o", "/dev/null", "true"]).exitCode === 0 ? "/usr/bin/time" : null;
  } catch {
    return null;
  }
})();

export function gnuTimeAvailable(): boolean {
  return GNU_TIME !== null;
}

function childPid(pid: number): number | null {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/)[0];
    return first ? Number(first) : null;
  } catch {
    return null;
  }
}

/** Runs `cmd` to its end (or the timeout) and measures it (under /usr/bin/time when available). */
export async function runMeasured(cmd: string[], options: RunOptions): Promise<Measured> {
  const timeFile = `${options.cwd}/.time-${process.pid}-${Date.now()}.txt`;
  const wrapped = GNU_TIME === null ? cmd : [GNU_TIME, "-f", "%e %U %S %M", "-o", timeFile, ...cmd];
  const t0 = performance.now();
  const proc = Bun.spawn({
    cmd: wrapped,
    cwd: options.cwd,
    env: options.env ?? (process.env as Record<string, string>),
    stdin: "ignore",
    stdout: options.stdoutPath === undefined ? "ignore" : Bun.file(options.stdoutPath),
    stderr: options.stderrPath === undefined ? "ignore" : Bun.file(options.stderrPath),
  });
  // The measured process: the command itself, i.e. GNU time's child when wrapped.
  let target: number | null = GNU_TIME === null ? proc.pid : null;
  let rssKiB = 0;
  let hwmKiB = 0;
  const sampler = setInterval(() => {
    if (target === null) target = childPid(proc.pid);
    if (target === null) return;
    rssKiB = Math.max(rssKiB, procStatusKiB(target, "VmRSS") ?? 0);
    hwmKiB = Math.max(hwmKiB, procStatusKiB(target, "VmHWM") ?? 0);
  }, 100);
  let timedOut = false;
  let killer: ReturnType<typeof setTimeout> | undefined;
  const kill = (signal: "SIGTERM" | "SIGKILL") => {
    const pid = target ?? childPid(proc.pid);
    try {
      if (pid !== null && pid !== proc.pid) process.kill(pid, signal);
    } catch {
      // already gone
    }
    proc.kill(signal);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill("SIGTERM");
    killer = setTimeout(() => kill("SIGKILL"), 5_000);
  }, options.timeoutS * 1000);
  await proc.exited;
  const wallS = (performance.now() - t0) / 1000;
  clearTimeout(timer);
  clearTimeout(killer);
  clearInterval(sampler);
  // GNU time dies of SIGTERM at once, but the command may not (a busy event loop never runs its handler):
  // make sure it is gone before the next run shares the CPU with it.
  if (timedOut && target !== null && target !== proc.pid) {
    for (let i = 0; i < 50 && existsSync(`/proc/${target}`); i++) await Bun.sleep(100);
    try {
      if (existsSync(`/proc/${target}`)) process.kill(target, "SIGKILL");
    } catch {
      // already gone
    }
  }
  let timed: number[] | null = null;
  if (GNU_TIME !== null) {
    try {
      // "Command exited with non-zero status N" / "Command terminated by signal N" may come first.
      const last = readFileSync(timeFile, "utf8").trim().split("\n").pop()!;
      const values = last.split(" ").map(Number);
      if (values.length === 4 && values.every(Number.isFinite)) timed = values;
      rmSync(timeFile, { force: true });
    } catch {
      // no report: fall back below
    }
  }
  const usage = proc.resourceUsage();
  const us = (v: bigint | number | undefined) => (v === undefined ? null : round(Number(v) / 1e6));
  // Wrapped but without a report (GNU time was killed): rusage would be GNU time's own, so say nothing.
  const user = timed !== null ? timed[1]! : GNU_TIME !== null ? null : us(usage?.cpuTime.user);
  const system = timed !== null ? timed[2]! : GNU_TIME !== null ? null : us(usage?.cpuTime.system);
  return {
    exit_code: proc.exitCode,
    signal: proc.signalCode ?? null,
    timed_out: timedOut,
    wall_s: round(wallS),
    cpu_user_s: user,
    cpu_system_s: system,
    cpu_s: user === null || system === null ? null : round(user + system),
    peak_rss_mib: timed !== null ? mib(timed[3]!) : mib(hwmKiB || null),
    rss_source: timed !== null ? "gnu-time" : "vmhwm-sampled",
    rss_peak_sampled_mib: mib(rssKiB || null),
  };
}
