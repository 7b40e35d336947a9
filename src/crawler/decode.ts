import { concatBytes } from "../net/body-sink.ts";
/**
 * Bytes to text for HTML pages, the way browsers choose: BOM, Content-Type charset, `<meta>` in the first 1024
 * bytes, then UTF-8 (windows-1252 as the fallback misreads more pages than it fixes). Bad bytes become U+FFFD.
 */

const HTML_TYPES: ReadonlySet<string> = new Set(["text/html", "application/xhtml+xml"]);

/** How far into the document a meta charset is looked for (HTML's prescan limit). */
export const PRESCAN_BYTES = 1024;

/** True when a Content-Type names an HTML document. */
export function isHtmlContentType(contentType: string | undefined): boolean {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  return HTML_TYPES.has(type);
}

/** The `charset` parameter of a Content-Type, if any. */
export function charsetOf(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "");
  return match?.[1] ?? null;
}

/** The encoding a byte-order mark at the start of `body` names, if any. */
export function bomEncoding(body: Uint8Array): string | null {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return "utf-8";
  if (body[0] === 0xfe && body[1] === 0xff) return "utf-16be";
  if (body[0] === 0xff && body[1] === 0xfe) return "utf-16le";
  return null;
}

function metaCharset(body: Uint8Array): string | null {
  const head = new TextDecoder("latin1").decode(body.subarray(0, PRESCAN_BYTES));
  const label = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1]?.toLowerCase() ?? null;
  // HTML's prescan: a document that could state its encoding in ASCII is not UTF-16, whatever it says.
  if (label?.startsWith("utf-16")) return "utf-8";
  return label;
}

/** A decoder for an encoding label; null when the label is absent or unknown. */
export function decoderFor(label: string | null): TextDecoder | null {
  if (label === null) return null;
  try {
    return new TextDecoder(label.toLowerCase());
  } catch {
    return null;
  }
}

/** The decoder for an HTML body; only its first PRESCAN_BYTES bytes are read. */
function htmlDecoder(body: Uint8Array, contentType: string | undefined): TextDecoder {
  return decoderFor(bomEncoding(body)) ?? decoderFor(charsetOf(contentType)) ?? decoderFor(metaCharset(body)) ?? new TextDecoder("utf-8");
}

/** Decodes an HTML body to text using the encoding its headers or markup declare. */
export function decodeHtml(body: Uint8Array, contentType: string | undefined): string {
  return htmlDecoder(body, contentType).decode(body);
}

/**
 * Decodes an HTML body that arrives in chunks into the same text decodeHtml gives for the whole, handing text
 * on as it is decoded: the first PRESCAN_BYTES bytes are held until the encoding is chosen, then nothing is.
 */
export class HtmlTextStream {
  private head: Uint8Array[] = [];
  private headBytes = 0;
  private text: TextChunker | null = null;
  /** Whether the page's bytes go on as they are (a UTF-8 page, with `onUtf8`), not as text. */
  private rawUtf8 = false;

  /**
   * `onUtf8`, when given, takes a UTF-8 page's bytes (without its byte-order mark) instead of `onText` taking
   * its text; `textToo` asks for the text of such a page as well. A page in another encoding goes to `onText`.
   */
  constructor(
    private readonly contentType: string | undefined,
    private readonly onText: (text: string) => void,
    private readonly onUtf8?: (bytes: Uint8Array) => void,
    private readonly textToo = false,
  ) {}

  /** Whether `onUtf8` takes this page's bytes (known once the encoding is chosen). */
  get bytesGoRaw(): boolean {
    return this.rawUtf8;
  }

  /** Feeds the next bytes of the body. */
  write(bytes: Uint8Array): void {
    if (this.text !== null || this.rawUtf8) {
      if (this.rawUtf8) this.onUtf8!(bytes);
      if (this.text !== null) this.emit(this.text.write(bytes));
      return;
    }
    this.head.push(bytes);
    this.headBytes += bytes.length;
    if (this.headBytes >= PRESCAN_BYTES) this.start();
  }

  /** The body is complete (or cut): decodes what is left. */
  end(): void {
    if (this.text === null && !this.rawUtf8) this.start();
    if (this.text !== null) this.emit(this.text.end());
  }

  private start(): void {
    const head = concatBytes(this.head, this.headBytes);
    this.head = [];
    const decoder = htmlDecoder(head, this.contentType);
    // A byte-order mark of the chosen encoding is skipped here, as a whole-body decode drops it; the stream
    // then ignores marks (Bun's streaming UTF-16 decoder would keep it, and a second mark is text).
    const bom = bomEncoding(head) === decoder.encoding ? (decoder.encoding === "utf-8" ? 3 : 2) : 0;
    this.rawUtf8 = this.onUtf8 !== undefined && decoder.encoding === "utf-8";
    if (!this.rawUtf8 || this.textToo) this.text = new TextChunker(decoder.encoding);
    const body = head.subarray(bom);
    if (this.rawUtf8 && body.length > 0) this.onUtf8!(body);
    if (this.text !== null) this.emit(this.text.write(body));
  }

  private emit(text: string): void {
    if (text !== "") this.onText(text);
  }
}

/**
 * Encodings whose streaming decode is exact in Bun (single-byte ones and UTF-8/16). Bun's streaming decoders of
 * the legacy multi-byte encodings drop a character split across chunks, so those are cut by hand (TextChunker).
 */
const STREAMED_ENCODINGS: ReadonlySet<string> = new Set(["utf-8", "utf-16le", "utf-16be", "windows-1252", "windows-874", "x-user-defined"]);
/** A byte below this is never inside a multi-byte character of Shift_JIS, EUC-JP, EUC-KR, GBK, GB18030 or Big5. */
const SINGLE_BYTE_BELOW = 0x30;
const LINE_FEED = 0x0a;

/** Bytes in, text out, in pieces that together are exactly the whole body's decode. */
class TextChunker {
  private readonly decoder: TextDecoder;
  private readonly streamed: boolean;
  /** Bytes after the last safe cut, held for the next chunk (legacy multi-byte encodings only). */
  private carry: Uint8Array[] = [];
  private carryBytes = 0;

  constructor(private readonly encoding: string) {
    this.decoder = new TextDecoder(encoding, { ignoreBOM: true });
    this.streamed = STREAMED_ENCODINGS.has(encoding);
  }

  write(bytes: Uint8Array): string {
    if (bytes.length === 0) return "";
    if (this.streamed) return this.decoder.decode(bytes, { stream: true });
    const cut = this.safeCut(bytes);
    if (cut === -1) {
      this.carry.push(bytes);
      this.carryBytes += bytes.length;
      return "";
    }
    // Each piece ends on a character boundary, so decoding the pieces apart equals decoding them together.
    this.carry.push(bytes.subarray(0, cut));
    const text = this.decoder.decode(concatBytes(this.carry, this.carryBytes + cut));
    this.carry = [bytes.subarray(cut)];
    this.carryBytes = bytes.length - cut;
    return text;
  }

  end(): string {
    if (this.streamed) return this.decoder.decode();
    const text = this.decoder.decode(concatBytes(this.carry, this.carryBytes));
    this.carry = [];
    this.carryBytes = 0;
    return text;
  }

  /** The offset just past the last byte that ends a character for sure, or -1. */
  private safeCut(bytes: Uint8Array): number {
    // ISO-2022-JP keeps a state across bytes; a line ends in its ASCII state (RFC 1468), so lines are the pieces.
    const stateful = this.encoding === "iso-2022-jp";
    for (let i = bytes.length - 1; i >= 0; i--) {
      const byte = bytes[i]!;
      if (stateful ? byte === LINE_FEED : byte < SINGLE_BYTE_BELOW) return i + 1;
    }
    return -1;
  }
}
