import { ReadAttributes, type ScannerCallbacks } from "../../src/crawler/html-scanner.ts";

/**
 * What a page reader tells the extractor, as plain data to compare: the JS scanner against htmlparser2
 * (html-scanner.test.ts) and the Wasm reader against the JS scanner (wasm-reader.test.ts).
 */

export type ScannerEvent = ["open", string, Record<string, string>] | ["close", string, boolean] | ["text", string];

/** The test vocabulary's reads: the link attributes of a few tags, a custom element's, and ids and styles everywhere. */
export const TEST_READ = new ReadAttributes(
  new Map([
    ["a", new Set(["href", "xlink:href", "name"])],
    ["img", new Set(["src", "srcset", "alt"])],
    ["meta", new Set(["content", "http-equiv"])],
    ["link", new Set(["href", "rel", "as"])],
    ["image", new Set(["href", "xlink:href"])],
    ["my-widget", new Set(["data-src"])],
    ["form", new Set(["action", "method"])],
    ["source", new Set(["src"])],
  ]),
  new Set(["id", "style"]),
);

/** Callbacks that push each event onto `events`; texts run together, as a reader may split a text anywhere. */
export function recordEvents(events: ScannerEvent[]): ScannerCallbacks {
  return {
    onopentag: (name, attribs) => events.push(["open", name, { ...attribs }]),
    onclosetag: (name, implied) => events.push(["close", name, implied]),
    ontext: (data) => {
      const last = events[events.length - 1];
      if (last?.[0] === "text") last[1] += data;
      else events.push(["text", data]);
    },
  };
}
