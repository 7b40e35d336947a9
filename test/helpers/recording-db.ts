import type { Bindings, Db } from "../../src/store/db.ts";

/** A statement a repo ran, as it ran it: the text and the values, for EXPLAIN. */
export interface RanStatement {
  text: string;
  params: Bindings | undefined;
}

/** `db`, with every statement run through `methods` (`all`, `get`, `run`) pushed to `seen` before it runs. */
export function recordingDb(db: Db, seen: RanStatement[], methods: readonly ("all" | "get" | "run")[] = ["all", "get", "run"]): Db {
  return new Proxy(db, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (!methods.includes(key as "all" | "get" | "run")) return typeof value === "function" ? value.bind(target) : value;
      return (text: string, params?: Bindings) => {
        seen.push({ text, params });
        return (value as Db["all"]).call(target, text, params);
      };
    },
  });
}
