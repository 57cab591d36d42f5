import type { IncomingMessage } from 'node:http';

/** A request's body, or null once it passes `maxBytes` (the rest is not read into memory). */
export async function readBoundedBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
