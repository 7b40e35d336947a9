import { readdirSync, readFileSync } from "node:fs";

/** Whether this system shows threads under /proc/self/task (Linux). */
export const HAS_THREAD_STATS = (() => {
  try {
    return readdirSync("/proc/self/task").length > 0;
  } catch {
    return false;
  }
})();

/** Nice value of every thread of this process, by thread id (Linux keeps the nice value per thread). */
export function threadNices(): Map<string, number> {
  const nices = new Map<string, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      nices.set(tid, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return nices;
}
