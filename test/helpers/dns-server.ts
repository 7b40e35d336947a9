/**
 * A tiny authoritative DNS server on UDP 127.0.0.1 for tests: it answers TXT (and ANY) queries from a fixed
 * table, NOERROR with no answer for other types of a known name, NXDOMAIN for unknown names, FORMERR for what
 * it cannot parse. Point `verification.dns_servers` at `address` to exercise the real resolver code path.
 * The wire format (RFC 1035 §4) is encoded here by hand: a header, the question echoed back, TXT answers.
 */
import dgram from "node:dgram";

/** A running test DNS server. */
export interface TestDnsServer {
  port: number;
  /** "127.0.0.1:PORT", ready for `verification.dns_servers`. */
  address: string;
  /** Every query received, as "NAME TYPE" (e.g. "_linkpatrol.example.test TXT"), in order. */
  queries: string[];
  stop(): Promise<void>;
}

/** Options: `silent` receives and logs queries but never answers (to test resolver timeouts). */
export interface TestDnsServerOptions {
  silent?: boolean;
}

const TYPE_TXT = 16;
const TYPE_ANY = 255;
const TYPE_NAMES: Record<number, string> = { 1: "A", 5: "CNAME", 16: "TXT", 28: "AAAA", 255: "ANY" };
const RCODE_FORMERR = 1;
const RCODE_NXDOMAIN = 3;
const HEADER_BYTES = 12;

interface Question {
  name: string;
  type: number;
  /** The question section exactly as received, echoed in the answer. */
  raw: Buffer;
}

/** Reads the first question; compression pointers are refused (a question never needs one). */
function parseQuestion(message: Buffer): Question | null {
  if (message.length < HEADER_BYTES || message.readUInt16BE(4) < 1) return null;
  const labels: string[] = [];
  let offset = HEADER_BYTES;
  // A name has at most 127 labels; the bound also keeps a hostile packet from looping.
  for (let count = 0; count < 128; count++) {
    const length = message[offset];
    if (length === undefined || (length & 0xc0) !== 0) return null;
    offset += 1;
    if (length === 0) {
      if (offset + 4 > message.length) return null;
      const type = message.readUInt16BE(offset);
      return { name: labels.join(".").toLowerCase(), type, raw: message.subarray(HEADER_BYTES, offset + 4) };
    }
    if (offset + length > message.length) return null;
    labels.push(message.toString("latin1", offset, offset + length));
    offset += length;
  }
  return null;
}

function header(query: Buffer, rcode: number, questions: number, answers: number): Buffer {
  const out = Buffer.alloc(HEADER_BYTES);
  out.writeUInt16BE(query.length >= 2 ? query.readUInt16BE(0) : 0, 0);
  const recursionDesired = query.length >= 3 ? query[2]! & 0x01 : 0;
  // QR=1 (response), opcode 0, AA=1, RD copied, RA=0, then the response code.
  out.writeUInt16BE(0x8000 | 0x0400 | (recursionDesired << 8) | rcode, 2);
  out.writeUInt16BE(questions, 4);
  out.writeUInt16BE(answers, 6);
  return out;
}

function txtAnswer(chunks: string[]): Buffer {
  const data = Buffer.concat(
    chunks.map((chunk) => {
      const bytes = Buffer.from(chunk, "utf8");
      if (bytes.length > 255) throw new Error(`TXT chunk longer than 255 bytes: ${chunk.slice(0, 20)}…`);
      return Buffer.concat([Buffer.from([bytes.length]), bytes]);
    }),
  );
  const fixed = Buffer.alloc(12);
  fixed.writeUInt16BE(0xc00c, 0); // pointer to the question's name, right after the header
  fixed.writeUInt16BE(TYPE_TXT, 2);
  fixed.writeUInt16BE(1, 4); // class IN
  fixed.writeUInt32BE(60, 6); // TTL
  fixed.writeUInt16BE(data.length, 10);
  return Buffer.concat([fixed, data]);
}

/** Builds the reply to one query from the record table. */
function answer(query: Buffer, records: { get(name: string): string[][] | undefined }): { reply: Buffer; question: Question | null } {
  const question = parseQuestion(query);
  if (question === null) return { reply: header(query, RCODE_FORMERR, 0, 0), question };
  const found = records.get(question.name);
  if (found === undefined) {
    return { reply: Buffer.concat([header(query, RCODE_NXDOMAIN, 1, 0), question.raw]), question };
  }
  const wanted = question.type === TYPE_TXT || question.type === TYPE_ANY ? found : [];
  const answers = wanted.map(txtAnswer);
  return { reply: Buffer.concat([header(query, 0, 1, answers.length), question.raw, ...answers]), question };
}

/**
 * Starts the server. `records` (read live: later changes are answered) maps a name (no trailing dot, any case) to its TXT records, each record a list of
 * character-strings that the resolver joins: `{ "_linkpatrol.example.test": [["linkpatrol-verify=abc"]] }`.
 */
export async function startDnsServer(records: Record<string, string[][]>, options: TestDnsServerOptions = {}): Promise<TestDnsServer> {
  // Read on every query, so a test may publish a record after the server started.
  const table = { get: (name: string) => Object.entries(records).find(([key]) => key.toLowerCase().replace(/\.$/, "") === name)?.[1] };
  const queries: string[] = [];
  const socket = dgram.createSocket("udp4");
  socket.on("message", (message, peer) => {
    const { reply, question } = answer(message, table);
    queries.push(question === null ? "(malformed)" : `${question.name} ${TYPE_NAMES[question.type] ?? question.type}`);
    if (!options.silent) socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const port = socket.address().port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    queries,
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
