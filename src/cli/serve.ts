import { configWarnings } from "../config/warnings.ts";
import { ConfigError, loadConfig } from "../config/load.ts";
import { applyConfiguredSchedules } from "../scheduler/configured-schedules.ts";
import type { Config } from "../config/schema.ts";
import { nodeNameOf } from "../config/node-name.ts";
import { createLogger, type Logger } from "../core/logger.ts";
import { acquireServiceLock, type ServiceLock } from "../store/service-lock.ts";
import { storeIdOf } from "../store/store-record.ts";
import { VERSION } from "../core/version.ts";
import { openRuntime, type Runtime } from "../runtime.ts";
import { untilAborted } from "../core/until-aborted.ts";
import { metricsListenerFetch } from "../api/routes/metrics.ts";
import { serveApi } from "../api/serve-api.ts";
import { err, EXIT_OK, out, parseCommandArgs, rejectExtraArgs } from "./usage.ts";

const SERVE_HELP = `Usage: linkpatrol serve [--config FILE] [--new-store]

Runs the API. The first start creates the store (storage.path) and an admin key, printed once on stderr
(unless auth.bootstrap_key is configured). Stops cleanly on SIGTERM or SIGINT, within server.shutdown_timeout.
One serve per store: while one runs (lock: STORE.lock beside the store), another exits 2 naming its pid.

STORE.lock also records which store was used. A start that finds that store missing, emptied or swapped for
another store refuses (exit 2, naming the file): put it back or restore a backup, or start over with
  --new-store   create a new, empty store where it is missing, or take the store found there as this
                service's own (see docs/operations.md, "A store file deleted, moved or replaced").`;

/** `linkpatrol serve`: resolves when the server has stopped. */
export async function serveCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { "new-store": { type: "boolean" } });
  if (values.help) {
    out(SERVE_HELP);
    return EXIT_OK;
  }
  rejectExtraArgs(positionals);
  const { config, file } = loadConfig({ file: values.config });
  const nodeName = nodeNameOf(config);
  const logger = createLogger(config.logging.level, undefined, { node: nodeName });
  // Taken before the store is opened: a second serve must not migrate it, resume its crawls or send its webhooks.
  // A PostgreSQL store has one per node instead, in the database (cluster/node-heartbeat.ts).
  const lock = config.storage.path === ":memory:" || config.storage.url !== null ? null : acquireServiceLock(config.storage.path, "serve");
  try {
    return await serveStore(config, file, logger, { lock, newStore: values["new-store"] === true, nodeName });
  } finally {
    lock?.release();
  }
}

/** Runs the service on a store whose lock this process holds; resolves when it has stopped. */
async function serveStore(
  config: Config,
  file: string | null,
  logger: Logger,
  store: { lock: ServiceLock | null; newStore: boolean; nodeName: string },
): Promise<number> {
  // Another process taking this node's name (a cluster) stops this one, as a signal would.
  let nameLost: () => void = () => {};
  const runtime = await openRuntime(config, {
    logger,
    lockHeld: true,
    createStore: true,
    newStore: store.newStore,
    nodeName: store.nodeName,
    onNodeNameLost: () => nameLost(),
  });
  try {
    // From now on a start that finds this store missing or swapped refuses (store/store-admission.ts).
    const storeId = runtime.store.sqlite === null ? null : storeIdOf(runtime.store.sqlite);
    if (storeId !== null) store.lock?.recordStore(storeId);
    await runtime.cluster?.join();
  } catch (error) {
    await runtime.close();
    throw error;
  }
  const scheduleProblems = await applyConfiguredSchedules(config.schedules, runtime.domains);
  if (scheduleProblems.length > 0) {
    await runtime.close();
    throw new ConfigError(scheduleProblems.map((problem) => `${file ?? "config"}: ${problem}`));
  }
  const app = await runtime.app();
  // Until the bootstrap key is made and the workers run (below), requests get 503 (serve-api.ts).
  let starting = true;
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = serveApi(app, { hostname: config.server.host, port: config.server.port, starting: () => starting });
  } catch (error) {
    await runtime.close();
    throw error;
  }
  let metricsServer: ReturnType<typeof Bun.serve> | null = null;
  if (config.metrics.enabled && config.metrics.port !== null) {
    try {
      metricsServer = Bun.serve({ hostname: config.metrics.host, port: config.metrics.port, fetch: metricsListenerFetch(runtime.metrics) });
    } catch (error) {
      void server.stop(true);
      await runtime.close();
      throw error;
    }
  }

  // Only once the port is ours: a start that fails to bind must not use up the one-time key.
  const bootstrap = await runtime.keys.bootstrap(config.auth.bootstrap_key);
  if (bootstrap?.generated) {
    err("linkpatrol: created the bootstrap admin key. It is shown only this once; store it now:");
    err(`\n    ${bootstrap.secret}\n`);
  } else if (bootstrap) {
    logger.info("bootstrap admin key created from auth.bootstrap_key", { key_id: bootstrap.key.id });
  }

  for (const warning of configWarnings(config)) logger.warn("config", { warning });
  runtime.crawlPool.start();
  runtime.dispatcher.start();
  await runtime.scheduler.start();
  runtime.retention.start();
  runtime.storeWatch?.start();
  runtime.store.start();
  runtime.cluster?.start();
  starting = false;
  // In place before "listening" is logged: whoever reads that line may stop the service at once, and a signal
  // that comes before the handlers takes the default action (killed, no clean shutdown).
  const signalled = new Promise<string>((resolve) => {
    // Handlers stay for good: a second SIGTERM (an impatient operator, systemd's stop while stopping) must not
    // fall back to the default action and kill the process mid-checkpoint; the shutdown already under way
    // ends within server.shutdown_timeout anyway.
    let received: string | null = null;
    const on = (name: string) => () => {
      if (received !== null) return logger.info("already shutting down", { signal: name });
      received = name;
      resolve(name);
    };
    process.on("SIGTERM", on("SIGTERM"));
    process.on("SIGINT", on("SIGINT"));
    nameLost = on("node name taken over");
  });
  const origin = localOrigin(server.hostname ?? config.server.host, server.port ?? config.server.port);
  logger.info("listening", {
    version: VERSION,
    ...(config.ui.enabled && { dashboard: `${origin}/` }),
    api: `${origin}${config.server.base_path}/`,
    port: server.port,
    docs: `${origin}/docs`,
    address: `${server.hostname}:${server.port}`,
    // Where people reach it (behind a proxy, the proxy's address): what notifications link to.
    ...(config.server.public_url === null ? {} : { public_url: config.server.public_url }),
    config: file ?? "built-in defaults",
    storage: runtime.store.location,
  });
  if (metricsServer !== null) {
    logger.info("metrics listening", { url: `http://${metricsServer.hostname}:${metricsServer.port}/metrics`, port: metricsServer.port });
  }

  const signal = await signalled;
  logger.info("shutting down", { signal, timeout_ms: config.server.shutdown_timeout });
  void metricsServer?.stop(true);
  const inTime = await stopServing(server, runtime, config.server.shutdown_timeout);
  // The name and every lease are given up: the other nodes take this node's crawls at once, not after a lease.
  await runtime.cluster?.leave().catch((error: unknown) => logger.warn("could not leave the cluster cleanly", { error: String(error) }));
  await runtime.close();
  if (!inTime) {
    logger.warn("shutdown timeout reached: cut off what was still running; it is redone on the next start", {
      timeout_ms: config.server.shutdown_timeout,
    });
    // Sockets or timers of the cut-off work may still be open; nothing of theirs needs to finish.
    process.exit(EXIT_OK);
  }
  logger.info("stopped");
  return EXIT_OK;
}

/**
 * The origin to open on this machine: a wildcard address (0.0.0.0, ::) is where the server listens, not an
 * address a browser can open, so it becomes localhost; an IPv6 address gets its brackets.
 */
export function localOrigin(hostname: string, port: number): string {
  const host = hostname === "0.0.0.0" || hostname === "::" || hostname === "" ? "localhost" : hostname.includes(":") ? `[${hostname}]` : hostname;
  return `http://${host}:${port}`;
}

/**
 * The graceful part of a shutdown, all at once: the server stops accepting and lets in-flight requests finish,
 * the scheduler and retention stop, running crawls checkpoint (they resume on the next start) and webhook attempts in flight
 * finish. Returns false when `timeoutMs` ran out first; the rest is then cut off.
 */
async function stopServing(server: ReturnType<typeof Bun.serve>, runtime: Runtime, timeoutMs: number): Promise<boolean> {
  const deadline = AbortSignal.timeout(timeoutMs);
  runtime.scheduler.stop();
  const drained = Promise.all([server.stop(), runtime.crawlPool.stop(deadline), runtime.dispatcher.stop(deadline), runtime.retention.stop()]);
  const inTime = await untilAborted(drained, deadline);
  if (!inTime) void server.stop(true);
  return inTime;
}
