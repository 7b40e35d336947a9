import { loadConfig } from "../config/load.ts";
import { openRuntime, type Runtime } from "../runtime.ts";

/** Loads the config named by --config (or the default) and opens the runtime for a one-shot command. */
export function withRuntime<T>(configFile: string | undefined, use: (runtime: Runtime) => T): T {
  const runtime = openRuntime(loadConfig({ file: configFile }).config);
  let closeNow = true;
  try {
    const result = use(runtime);
    if (result instanceof Promise) {
      closeNow = false;
      return result.finally(() => runtime.close()) as T;
    }
    return result;
  } finally {
    if (closeNow) runtime.close();
  }
}
