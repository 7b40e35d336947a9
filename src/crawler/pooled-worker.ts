import type { Logger } from "../core/logger.ts";
import type { JobEnd, StopReason } from "../core/crawl-life.ts";
import type { CrawlJobSettings } from "./crawl-job.ts";
import type { FromWorker, ToWorker } from "./crawl-worker.ts";
import type { CrawlProgress } from "./crawl.ts";

/**
 * One worker thread of the crawl pool, its life as an explicit state (idle → starting → running → idle; any → dead).
 * A kept worker that dies while `starting` ran nothing of the crawl, so the crawl is retried on a new worker. Calls
 * for a crawl the worker no longer holds do nothing, so they never reach its next crawl.
 */

/** A crawl handed to a worker, and where its end is reported (once). */
export interface Assignment {
  crawlId: string;
  end(end: JobEnd): void;
}

type WorkerState =
  | { kind: "idle" }
  | { kind: "starting"; assignment: Assignment; kept: boolean }
  | { kind: "running"; assignment: Assignment }
  | { kind: "dead" };

export interface PooledWorkerHooks {
  logger: Logger;
  onProgress?: (progress: CrawlProgress) => void;
  /** Called once, when the worker has been terminated. */
  onDead(worker: PooledWorker): void;
}

/**
 * Where the worker's code is. In a compiled binary modules live under /$bunfs/root, and a relative path names an
 * entrypoint bundled next to main.ts (scripts/build.ts adds it); from source, it is the file beside this one.
 */
function workerEntry(): string {
  return import.meta.url.includes("/$bunfs/") ? "./crawler/crawl-worker.ts" : new URL("./crawl-worker.ts", import.meta.url).href;
}

/** A worker thread of the crawl pool, running at most one crawl at a time. */
export class PooledWorker {
  private state: WorkerState = { kind: "idle" };
  /** Bun's Worker, which has Node's ref/unref (the DOM typing of `Worker` does not). */
  private readonly worker = new Worker(workerEntry(), { smol: true }) as Worker & Pick<Bun.Worker, "ref" | "unref">;

  constructor(private readonly hooks: PooledWorkerHooks) {
    this.worker.onmessage = (event: MessageEvent<FromWorker>) => this.received(event.data);
    this.worker.onerror = (event) => this.exited(event.message);
    // A worker that exits without a word (killed thread, fatal error) ends its crawl rather than leaving it held.
    this.worker.addEventListener("close", () => this.exited("the worker thread exited"));
  }

  /** Whether the worker waits for a crawl. */
  get idle(): boolean {
    return this.state.kind === "idle";
  }

  /** idle → starting: runs the crawl of `assignment`; `kept` says the worker has run a crawl before. */
  start(assignment: Assignment, settings: CrawlJobSettings, kept: boolean): void {
    if (this.state.kind !== "idle") throw new Error(`a ${this.state.kind} crawl worker cannot take up a crawl`);
    this.worker.ref();
    this.state = { kind: "starting", assignment, kept };
    this.send({ type: "start", crawlId: assignment.crawlId, settings });
  }

  /** Asks the crawl of `assignment` to stop, if this worker still holds it. */
  stop(assignment: Assignment, reason: StopReason): void {
    if (this.held() === assignment) this.send({ type: "stop", reason });
  }

  /** Ends the crawl of `assignment` at once, mid-batch, if this worker still holds it. */
  kill(assignment: Assignment): void {
    if (this.held() === assignment) this.retire();
  }

  /** → dead, at once: a crawl the worker still held ends as killed. */
  retire(): void {
    this.die()?.end({ kind: "crashed", error: "killed at shutdown" });
  }

  /** The crawl this worker holds, if any. */
  private held(): Assignment | null {
    const state = this.state;
    switch (state.kind) {
      case "starting":
      case "running":
        return state.assignment;
      case "idle":
      case "dead":
        return null;
    }
  }

  private received(message: FromWorker): void {
    const assignment = this.held();
    // Nothing holds the worker: whatever it says belongs to no crawl.
    if (assignment === null) return;
    // It answers `started` first; any answer means it took up the crawl.
    this.state = { kind: "running", assignment };
    switch (message.type) {
      case "started":
        return;
      case "progress":
        this.hooks.onProgress?.(message.progress);
        return;
      case "ended":
        // A job that threw is reported, and the thread that ran it is not trusted with another.
        if (message.end.kind === "crashed") this.die()?.end(message.end);
        else this.release(message.end);
        return;
      default:
        message satisfies never;
    }
  }

  private exited(why: string): void {
    const state = this.state;
    switch (state.kind) {
      case "dead":
        return;
      case "idle":
        this.die();
        return;
      case "starting":
        if (state.kept) {
          // Nothing of this crawl ran; "stopped" leaves it running, and the pool takes it up on a new worker.
          this.hooks.logger.warn("a kept crawl worker died before taking up its crawl; starting the crawl again", {
            crawl_id: state.assignment.crawlId,
            error: why,
          });
          this.die()?.end({ kind: "stopped" });
        } else this.die()?.end({ kind: "crashed", error: why });
        return;
      case "running":
        this.die()?.end({ kind: "crashed", error: why });
        return;
      default:
        state satisfies never;
    }
  }

  /** running → idle: the crawl ended in order, and the thread is kept for the next one. */
  private release(end: JobEnd): void {
    const assignment = this.held();
    this.state = { kind: "idle" };
    this.worker.unref();
    assignment?.end(end);
  }

  /** → dead: terminates the thread (once) and returns the crawl it held, for the caller to end. */
  private die(): Assignment | null {
    if (this.state.kind === "dead") return null;
    const assignment = this.held();
    this.state = { kind: "dead" };
    this.worker.terminate();
    this.hooks.onDead(this);
    return assignment;
  }

  private send(message: ToWorker): void {
    this.worker.postMessage(message);
  }
}
