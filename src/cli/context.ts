import { loadConfig } from "../config/load.ts";
import { openRuntime, type Runtime } from "../runtime.ts";

/** Loads the config named by --config (or the default), opens the runtime for a one-shot command, and closes it after. */
export async function withRuntime<T>(configFile: string | undefined, use: (runtime: Runtime) => T | Promise<T>): Promise<T> {
  const runtime = await openRuntime(loadConfig({ file: configFile }).config);
  try {
    return await use(runtime);
  } finally {
    await runtime.close();
  }
}
