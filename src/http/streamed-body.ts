/**
 * Response bodies produced while they are sent (a crawl's report of 500k links). The API's node:http listener
 * (api/node-listener.ts) buffers every other body whole, which is what lets it write an answer in one send; these
 * it passes on chunk by chunk. The mark is on the stream, which Hono keeps when it re-wraps a response.
 */
const streamedBodies = new WeakSet<ReadableStream>();

/** Marks `body` as one to send as it is produced; returns it. */
export function streamedBody<T extends ReadableStream>(body: T): T {
  streamedBodies.add(body);
  return body;
}

export function isStreamedBody(body: ReadableStream): boolean {
  return streamedBodies.has(body);
}
