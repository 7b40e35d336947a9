import { readFileSync } from "node:fs";
import { decodeHTML, decodeHTMLAttribute } from "entities/decode";
import { createLogger } from "../../core/logger.ts";
import { HtmlScanner, rcdataDecoded, type ReadAttributes, type ScannerCallbacks } from "../html-scanner.ts";
import wasmPath from "./page-tokenizer.wasm" with { type: "file" };

/**
 * The extractor's page reader: the Wasm tokenizer's records turned into the JS scanner's events
 * (docs/decisions.md, "Pages are read by a Wasm tokenizer"). The JS scanner is the fallback when the module will
 * not load, the attributes do not fit its table, or a page passes its caps.
 */
export interface PageReader {
  /** Decoded text (a page in another encoding than UTF-8): encoded back to UTF-8 for the tokenizer. */
  write(text: string): void;
  /** The page's bytes, UTF-8. */
  writeUtf8(bytes: Uint8Array): void;
  end(): void;
}

let continuedByJs = 0;

/** Pages whose rest the JS scanner read, the tokenizer's caps reached (since the thread began). */
export function pagesContinuedByJs(): number {
  return continuedByJs;
}

/** The reader for one page: Wasm when it can be, else the JS scanner. */
export function createPageReader(wantsText: () => boolean, attributes: ReadAttributes, jsScanner: boolean, cbs: ScannerCallbacks): PageReader {
  const tokenizer = jsScanner || attributeNames(attributes) === null ? null : acquire();
  if (tokenizer === null) return new JsPageReader(new HtmlScanner(wantsText, attributes, cbs));
  return new WasmPageReader(tokenizer, wantsText, attributes, cbs);
}

/** The JS scanner as a PageReader (the fallback), taking bytes through a streaming UTF-8 decoder. */
class JsPageReader implements PageReader {
  private decoder: TextDecoder | null = null;

  constructor(private readonly scanner: HtmlScanner) {}

  write(text: string): void {
    this.scanner.write(text);
  }

  writeUtf8(bytes: Uint8Array): void {
    this.decoder ??= new TextDecoder("utf-8", { ignoreBOM: true });
    const text = this.decoder.decode(bytes, { stream: true });
    if (text !== "") this.scanner.write(text);
  }

  end(): void {
    if (this.decoder !== null) {
      const text = this.decoder.decode();
      if (text !== "") this.scanner.write(text);
    }
    this.scanner.end();
  }
}

// Record layout (page-tokenizer.c): four i32 each, type | flags << 8, id, start, end.
const R_OPEN = 1;
const R_CLOSE = 2;
const R_ATTR = 3;
const R_ATTR_NAME = 4;
const R_TEXT = 5;
const R_DROP = 6;
const F_IMPLIED = 1;
const F_AMP = 2;
const F_WIDE = 4;
/** A text record's mode: 1 decode entities as text; 2 as RCDATA (any other non-zero mode). */
const T_DECODE = 1;
/** The tokenizer's configured attribute names: 64 bits of a mask, each name at most this long in the table. */
const MAX_ATTRIBUTE_NAMES = 64;
const MAX_NAME_LENGTH = 16;
/** A tokenizer whose memory grew past its start by more than this is dropped after the page, not reused. */
const KEEP_GROWTH_BYTES = 4 * 1024 * 1024;
/** Tokenizers kept for reuse at most (a thread reads a few pages at once; each holds its own state). */
const POOL_SIZE = 32;

/** Node's Buffer methods that Bun has and @types/node does not list: a string straight from the bytes. */
type SlicingBuffer = Buffer & {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
  latin1Write(text: string, offset: number): number;
};

interface TokenizerExports {
  memory: WebAssembly.Memory;
  scan(n: number, final: number): number;
  finish(): void;
  reset(): void;
  configure(count: number): void;
  set_reads(id: number, low: number, high: number): void;
  input_ptr(): number;
  records_ptr(): number;
  record_count(): number;
  clear_records(): void;
  attr_config_ptr(): number;
  stack_ptr(): number;
  stack_depth(): number;
  is_overflowed(): number;
  static_count(): number;
  mask_cap(): number;
  id_cap(): number;
  name_ptr(id: number): number;
}

/** One instance of the module: its memory, the names of its ids, and the page reading it (one at a time). */
class Tokenizer {
  readonly exports: TokenizerExports;
  private bufferSeen: ArrayBuffer | null = null;
  bytes!: Uint8Array;
  buffer!: SlicingBuffer;
  records!: Int32Array;
  readonly inputPtr: number;
  readonly recordsPtr: number;
  readonly startBytes: number;
  /** Names by id: the static ones, then those configured, then the page's own (dropped at each page). */
  readonly names: string[] = [];
  private readonly ids = new Map<string, number>();
  private configuredNames = 0;
  configuredFor: ReadAttributes | null = null;
  /** Attribute names by configured index. */
  attributeNames: string[] = [];
  private readonly idCap: number;
  /** The page being read, for the imports: set only during a call into the module, so nothing else holds the reader. */
  reader: WasmPageReader | null = null;

  constructor(module: WebAssembly.Module) {
    const instance = new WebAssembly.Instance(module, {
      env: {
        flush: () => this.reader!.takeRecords(),
        intern: (ptr: number, length: number) => this.intern(ptr, length),
      },
    });
    this.exports = instance.exports as unknown as TokenizerExports;
    this.exports.reset();
    this.refresh();
    this.inputPtr = this.exports.input_ptr();
    this.recordsPtr = this.exports.records_ptr() >> 2;
    this.startBytes = this.exports.memory.buffer.byteLength;
    this.idCap = this.exports.id_cap();
    const count = this.exports.static_count();
    for (let id = 0; id < count; id++) {
      const ptr = this.exports.name_ptr(id);
      const name = this.buffer.latin1Slice(ptr, this.bytes.indexOf(0, ptr));
      this.names.push(name);
      // Lowercase names are found by name; SVG's camel-case ones only through the tokenizer's adjustment.
      if (name === name.toLowerCase() && !this.ids.has(name)) this.ids.set(name, id);
    }
    this.configuredNames = this.names.length;
  }

  /** Views of the memory, made again after it grew (a grown memory has a new ArrayBuffer). */
  refresh(): void {
    const buffer = this.exports.memory.buffer;
    if (buffer === this.bufferSeen) return;
    this.bufferSeen = buffer;
    this.bytes = new Uint8Array(buffer);
    this.buffer = Buffer.from(buffer) as SlicingBuffer;
    this.records = new Int32Array(buffer);
  }

  /** Room for `length` input bytes. */
  reserve(length: number): void {
    const needed = this.inputPtr + length;
    const memory = this.exports.memory;
    if (needed > memory.buffer.byteLength) {
      memory.grow(Math.ceil((needed - memory.buffer.byteLength) / 65536));
      this.refresh();
    }
  }

  /** The tokenizer's id of a name it could not look up itself, lowercased as the JS scanner does. */
  private intern(ptr: number, length: number): number {
    const name = this.buffer.utf8Slice(ptr, ptr + length).toLowerCase();
    return this.idOf(name);
  }

  private idOf(name: string): number {
    const known = this.ids.get(name);
    if (known !== undefined) return known;
    const id = this.names.length;
    if (id >= this.idCap) return -1;
    this.names.push(name);
    this.ids.set(name, id);
    return id;
  }

  /** Tells the tokenizer which attributes are read on which tags (kept while pages ask for the same). */
  configure(attributes: ReadAttributes, names: string[]): void {
    if (this.configuredFor === attributes) return;
    this.configuredNames = this.exports.static_count();
    this.forgetPageNames();
    const e = this.exports;
    const config = e.attr_config_ptr();
    this.bytes.fill(0, config, config + MAX_ATTRIBUTE_NAMES * (MAX_NAME_LENGTH + 1));
    names.forEach((name, k) => {
      const at = config + k * (MAX_NAME_LENGTH + 1);
      // A name the tokenizer cannot match in place (long, or of other characters) is left to the JS side.
      const plain = name.length <= MAX_NAME_LENGTH && /^[a-z0-9:-]+$/.test(name);
      this.bytes[at] = plain ? name.length : 0xff;
      if (plain) this.buffer.latin1Write(name, at + 1);
    });
    e.configure(names.length);
    const index = new Map(names.map((name, k) => [name, k]));
    const mask = (set: ReadonlySet<string>): [number, number] => {
      let low = 0;
      let high = 0;
      for (const name of set) {
        const k = index.get(name)!;
        if (k < 32) low |= 1 << k;
        else high |= 1 << (k - 32);
      }
      return [low >>> 0, high >>> 0];
    };
    const [low, high] = mask(attributes.everywhere);
    e.set_reads(-1, low, high);
    for (const tag of attributes.byTag.keys()) {
      const id = this.idOf(tag);
      const read = attributes.readOn(tag)!;
      const [tagLow, tagHigh] = mask(read);
      e.set_reads(id, tagLow, tagHigh);
    }
    this.configuredNames = this.names.length;
    if (this.configuredNames > e.mask_cap()) throw new Error("too many tag names configured");
    this.attributeNames = names;
    this.configuredFor = attributes;
  }

  /** Drops the names the last page added; the static and configured ones stay. */
  forgetPageNames(): void {
    const from = this.configuredNames;
    for (let id = from; id < this.names.length; id++) this.ids.delete(this.names[id]!);
    this.names.length = from;
  }

  /** The bytes the memory has grown by since the instance began. */
  grownBytes(): number {
    return this.exports.memory.buffer.byteLength - this.startBytes;
  }
}

let compiled: WebAssembly.Module | null | undefined;
const pool: Tokenizer[] = [];

/** A tokenizer for one page, or null when the module cannot be used here (logged once). */
function acquire(): Tokenizer | null {
  const kept = pool.pop();
  if (kept !== undefined) return kept;
  if (compiled === null) return null;
  try {
    compiled ??= new WebAssembly.Module(readFileSync(wasmPath));
    return new Tokenizer(compiled);
  } catch (error) {
    compiled = null;
    createLogger("warn").warn("the Wasm page reader could not start; pages are read by the JS scanner", {
      error: error instanceof Error ? error.message : String(error),
    });
    return null;
  }
}

/** A tokenizer back for the next page; one whose memory grew for a big page is let go, so the memory is freed. */
function release(tokenizer: Tokenizer): void {
  if (tokenizer.grownBytes() > KEEP_GROWTH_BYTES || pool.length >= POOL_SIZE) return;
  pool.push(tokenizer);
}

/** The attribute names a ReadAttributes reads, in a fixed order; null when more than the tokenizer takes. */
function attributeNames(attributes: ReadAttributes): string[] | null {
  let names = NAMES_READ.get(attributes);
  if (names === undefined) {
    const all = new Set(attributes.everywhere);
    for (const set of attributes.byTag.values()) for (const name of set) all.add(name);
    names = all.size <= MAX_ATTRIBUTE_NAMES ? [...all] : null;
    NAMES_READ.set(attributes, names);
  }
  return names;
}

const NAMES_READ = new WeakMap<ReadAttributes, string[] | null>();

const EMPTY_ATTRIBUTES: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** How many bytes at the end of input[0, n) begin a UTF-8 character the next bytes may finish (0 to 3). */
function unfinishedCharacter(bytes: Uint8Array, from: number, n: number): number {
  for (let back = 1; back <= 3 && n - back >= from; back++) {
    const byte = bytes[n - back]!;
    if (byte < 0x80) return 0;
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return length > back ? back : 0;
    }
  }
  return 0;
}

class WasmPageReader implements PageReader {
  /** Bytes in the tokenizer's input: what earlier scans kept, then what arrived since. */
  private filled = 0;
  /** The scan waits until this many bytes are there again (a construct cut off is read once it may have doubled). */
  private waitFor = 0;
  /** The attributes of the tag being read, when it has any read. */
  private attribs: Record<string, string> | null = null;
  /** The unusual attribute name just reported (its record comes right before its value's). */
  private attributeName = "";
  private attributeTag = 0;
  /** After an overflow (or once ended), the rest of the page goes here. */
  private fallback: JsPageReader | null = null;
  private ended = false;
  private readonly encoder = new TextEncoder();
  private highSurrogate = "";

  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly wantsText: () => boolean,
    private readonly attributes: ReadAttributes,
    private readonly cbs: ScannerCallbacks,
  ) {
    tokenizer.configure(attributes, attributeNames(attributes)!);
    tokenizer.forgetPageNames();
    tokenizer.exports.reset();
  }

  write(text: string): void {
    // A surrogate pair cut between two writes is encoded whole, with the next write.
    let whole = this.highSurrogate + text;
    this.highSurrogate = "";
    const last = whole.charCodeAt(whole.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.highSurrogate = whole.slice(-1);
      whole = whole.slice(0, -1);
    }
    if (whole !== "") this.writeUtf8(this.encoder.encode(whole));
  }

  writeUtf8(bytes: Uint8Array): void {
    if (this.fallback !== null) {
      this.fallback.writeUtf8(bytes);
      return;
    }
    if (bytes.length === 0) return;
    const t = this.tokenizer;
    t.reserve(this.filled + bytes.length);
    t.bytes.set(bytes, t.inputPtr + this.filled);
    this.filled += bytes.length;
    const usable = this.filled - unfinishedCharacter(t.bytes, t.inputPtr, t.inputPtr + this.filled);
    if (usable < this.waitFor || usable === 0) return;
    this.scan(usable, false);
  }

  end(): void {
    if (this.ended) return;
    if (this.highSurrogate !== "") this.writeUtf8(this.encoder.encode(this.highSurrogate));
    this.ended = true;
    if (this.fallback === null) {
      if (this.filled > 0) this.scan(this.filled, true);
    }
    const t = this.tokenizer;
    if (this.fallback !== null) {
      this.fallback.end();
    } else {
      t.reader = this;
      try {
        t.exports.finish();
        this.takeRecords();
      } finally {
        t.reader = null;
      }
    }
    t.exports.reset();
    release(t);
  }

  private scan(usable: number, final: boolean): void {
    const t = this.tokenizer;
    t.reader = this;
    let stop: number;
    try {
      stop = t.exports.scan(usable, final ? 1 : 0);
      this.takeRecords();
    } finally {
      t.reader = null;
    }
    this.attribs = null;
    if (t.exports.is_overflowed() !== 0) {
      this.overflow(stop);
      return;
    }
    // What is left is moved to the input's start, for the next write to follow.
    const input = t.inputPtr;
    if (stop > 0) t.bytes.copyWithin(input, input + stop, input + this.filled);
    this.filled -= stop;
    const kept = usable - stop;
    this.waitFor = kept > 0 ? kept * 2 : 0;
  }

  /** The tokenizer's caps are reached: the JS scanner goes on from where it stopped, with its open elements. */
  private overflow(stop: number): void {
    continuedByJs++;
    const t = this.tokenizer;
    const depth = t.exports.stack_depth();
    const stack = new Uint32Array(t.bytes.buffer, t.exports.stack_ptr(), depth);
    const open = Array.from(stack, (id) => t.names[id]!);
    const scanner = new HtmlScanner(this.wantsText, this.attributes, this.cbs);
    scanner.adoptOpenElements(open);
    this.fallback = new JsPageReader(scanner);
    const rest = t.bytes.slice(t.inputPtr + stop, t.inputPtr + this.filled);
    this.filled = 0;
    this.fallback.writeUtf8(rest);
  }

  /** Hands the records written so far to the callbacks (also called by the tokenizer when its buffer is full). */
  takeRecords(): void {
    const t = this.tokenizer;
    const e = t.exports;
    const count = e.record_count();
    const records = t.records;
    const names = t.names;
    const buffer = t.buffer;
    const cbs = this.cbs;
    for (let r = t.recordsPtr, last = t.recordsPtr + count * 4; r < last; r += 4) {
      const head = records[r]!;
      const type = head & 0xff;
      if (type === R_CLOSE) {
        cbs.onclosetag(names[records[r + 1]!]!, ((head >> 8) & F_IMPLIED) !== 0);
      } else if (type === R_OPEN) {
        const attribs = this.attribs ?? EMPTY_ATTRIBUTES;
        this.attribs = null;
        cbs.onopentag(names[records[r + 1]!]!, attribs);
      } else if (type === R_TEXT) {
        if (!this.wantsText()) continue;
        const start = records[r + 2]! + t.inputPtr;
        let data = buffer.utf8Slice(start, records[r + 3]! + t.inputPtr);
        const mode = head >> 8;
        if (mode !== 0 && data.includes("&")) data = mode === T_DECODE ? decodeHTML(data) : rcdataDecoded(data, 0, data.length, names[records[r + 1]!]!);
        if (data !== "") cbs.ontext(data);
      } else if (type === R_ATTR) {
        const index = records[r + 1]!;
        let name: string;
        if (index >= 0) name = t.attributeNames[index]!;
        else {
          name = this.attributeName;
          if (!this.attributes.readOn(names[this.attributeTag]!)?.has(name)) continue;
        }
        let attribs = this.attribs;
        if (attribs === null) {
          attribs = {};
          this.attribs = attribs;
        } else if (Object.hasOwn(attribs, name)) continue;
        const flags = head >> 8;
        const start = records[r + 2]! + t.inputPtr;
        const end = records[r + 3]! + t.inputPtr;
        let value = end > start ? ((flags & F_WIDE) !== 0 ? buffer.utf8Slice(start, end) : buffer.latin1Slice(start, end)) : "";
        if ((flags & F_AMP) !== 0) value = decodeHTMLAttribute(value);
        attribs[name] = value;
      } else if (type === R_ATTR_NAME) {
        this.attributeTag = records[r + 1]!;
        this.attributeName = buffer.utf8Slice(records[r + 2]! + t.inputPtr, records[r + 3]! + t.inputPtr).toLowerCase();
      } else if (type === R_DROP) {
        this.attribs = null;
      }
    }
    e.clear_records();
  }
}
