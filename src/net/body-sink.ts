/**
 * A response body decoded and capped on the DECODED bytes (the decompression-bomb guard), and on the raw bytes
 * too, since a compressed stream can be endless while producing nothing. A cap cuts and marks, never throws.
 */
import zlib from "node:zlib";

/** Takes decoded bytes as they come; each chunk is the consumer's to keep or drop. */
export type BodyConsumer = (chunk: Uint8Array) => void;

/**
 * Whoever reads an answer's body (safeFetch's `bodyReader`): with a consumer the decoded body streams to it,
 * without one it is collected up to the cap. The same object comes back on the result, so the caller reads
 * what it opened without keeping state of its own.
 */
export interface BodyReader {
  readonly consumer?: BodyConsumer;
}

/** A finished body: at most the cap (empty when a consumer took it), and whether anything was cut. */
export interface CollectedBody {
  body: Uint8Array;
  truncated: boolean;
}

type Decoder = zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress;

/** True when the first two bytes are a zlib header; servers that say "deflate" often send raw deflate. */
function looksLikeZlibHeader(bytes: Uint8Array): boolean {
  const [cmf = 0, flg = 0] = bytes;
  return (cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0;
}

/** The decoder for one of the encodings in DECODED_ENCODINGS. */
function decoderFor(encoding: string, firstBytes: Uint8Array): Decoder {
  // Sync flush at the end tolerates streams cut short (by the server or by our raw cap) instead of failing.
  const lenient = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  switch (encoding) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip(lenient);
    case "deflate":
      return looksLikeZlibHeader(firstBytes) ? zlib.createInflate(lenient) : zlib.createInflateRaw(lenient);
    default:
      return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
  }
}

const DECODED_ENCODINGS = new Set(["gzip", "x-gzip", "deflate", "br"]);
const EMPTY = new Uint8Array(0);

/** Accumulates raw chunks, decodes them, and caps both raw and decoded sizes at `maxBytes`. */
export class BodySink {
  private readonly chunks: Uint8Array[] = [];
  private readonly encoding: string;
  private decodedBytes = 0;
  private rawBytes = 0;
  private rawFull = false;
  private decodedFull = false;
  private decoder: Decoder | null = null;
  private pendingRaw: Uint8Array[] = [];
  private failure: Error | null = null;
  /** What a consumer threw: a programming error, thrown again by `end()` rather than taken for bad data. */
  private consumerError: unknown = null;

  /** `contentEncoding` is the response's Content-Encoding header, if any; `consumer` takes the decoded bytes. */
  constructor(
    contentEncoding: string | undefined,
    private readonly maxBytes: number,
    private readonly consumer?: BodyConsumer,
  ) {
    const encoding = (contentEncoding ?? "").trim().toLowerCase();
    // An encoding we never asked for (or a chain of them) is kept as it came; the header tells the caller.
    this.encoding = DECODED_ENCODINGS.has(encoding) ? encoding : "identity";
  }

  /** True once a cap is reached or decoding failed: the caller should stop reading and call `end()`. */
  get full(): boolean {
    return this.rawFull || this.decodedFull || this.failure !== null || this.consumerError !== null;
  }

  /** What the consumer threw, if it did; the caller rethrows it. */
  get consumerFailure(): unknown {
    return this.consumerError;
  }

  /** Feeds raw bytes as they arrive from the network. */
  write(chunk: Uint8Array): void {
    if (this.full || chunk.length === 0) return;
    const room = this.maxBytes - this.rawBytes;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.rawBytes += part.length;
    if (chunk.length > room) this.rawFull = true;
    if (this.encoding === "identity") {
      this.take(part);
    } else if (this.decoder !== null) {
      this.decoder.write(part);
    } else {
      // The deflate flavour is told by the first two bytes, so the decoder starts once it has them.
      this.pendingRaw.push(part);
      if (this.pendingBytes() >= 2) this.startDecoder();
    }
  }

  /** Flushes the decoder and returns the body; rejects when the encoded data is corrupt. */
  async end(): Promise<CollectedBody> {
    if (this.decoder === null && this.pendingBytes() > 0) this.startDecoder();
    const decoder = this.decoder;
    if (decoder !== null && !this.decodedFull && this.failure === null && this.consumerError === null) {
      await new Promise<void>((resolve) => {
        decoder.once("end", resolve);
        decoder.once("close", resolve);
        decoder.once("error", () => resolve());
        decoder.end();
      });
    }
    this.destroy();
    if (this.failure !== null) throw this.failure;
    const body = this.consumer === undefined ? concatBytes(this.chunks, this.decodedBytes) : EMPTY;
    return { body, truncated: this.rawFull || this.decodedFull };
  }

  /** Releases the decoder without waiting for it. */
  destroy(): void {
    this.decoder?.destroy();
  }

  private pendingBytes(): number {
    return this.pendingRaw.reduce((sum, chunk) => sum + chunk.length, 0);
  }

  private startDecoder(): void {
    const first = concatBytes(this.pendingRaw, this.pendingBytes());
    this.pendingRaw = [];
    const decoder = decoderFor(this.encoding, first);
    this.decoder = decoder;
    decoder.on("data", (chunk: Buffer) => this.take(chunk));
    decoder.on("error", (error: Error) => {
      if (!this.decodedFull) this.failure = error;
    });
    decoder.write(first);
  }

  private take(chunk: Uint8Array): void {
    if (this.decodedFull || this.consumerError !== null) return;
    const room = this.maxBytes - this.decodedBytes;
    if (chunk.length > room) {
      this.keep(chunk.subarray(0, room));
      this.decodedBytes += room;
      this.decodedFull = true;
      // Stop inflating at once: this is where a decompression bomb is defused.
      this.decoder?.destroy();
      return;
    }
    this.keep(chunk);
    this.decodedBytes += chunk.length;
  }

  private keep(chunk: Uint8Array): void {
    if (this.consumer === undefined) {
      this.chunks.push(chunk);
      return;
    }
    if (chunk.length === 0) return;
    try {
      this.consumer(chunk);
    } catch (error) {
      this.consumerError = error;
      this.decoder?.destroy();
    }
  }
}

/**
 * The chunks (`total` bytes in all) as one array: a lone chunk as it is (a page read whole is one chunk, and
 * copying it cost an allocation of every page's size), several copied into a new one.
 */
export function concatBytes(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]!.length === total) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
