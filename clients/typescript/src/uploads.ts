/**
 * Turns upload sources into data chunks of at most 1 MiB (mirrors `quire.client.uploads`).
 *
 * A source is a `Uint8Array` (a Node `Buffer` is one), a path (`string` — always a path), or an
 * (async) iterable of byte chunks of any size. Chunks are re-cut so that every data message
 * except the last holds exactly `CHUNK_SIZE` bytes.
 */
import { createReadStream } from "node:fs";

export const CHUNK_SIZE = 1024 * 1024;

export type UploadSource = Uint8Array | string | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** Re-cuts pieces of any size into chunks of exactly `size` bytes (the last may be shorter). */
export async function* rechunk(
  pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  size: number = CHUNK_SIZE,
): AsyncGenerator<Uint8Array> {
  let buffer = new Uint8Array(size);
  let filled = 0;
  for await (const piece of pieces) {
    let offset = 0;
    while (offset < piece.length) {
      const take = Math.min(size - filled, piece.length - offset);
      buffer.set(piece.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
      if (filled === size) {
        yield buffer;
        buffer = new Uint8Array(size);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield buffer.slice(0, filled);
}

/** The data chunks of any source; files are streamed, never read whole. */
export async function* uploadChunks(
  data: UploadSource,
  size: number = CHUNK_SIZE,
): AsyncGenerator<Uint8Array> {
  if (typeof data === "string") {
    yield* rechunk(createReadStream(data, { highWaterMark: size }) as AsyncIterable<Uint8Array>, size);
    return;
  }
  if (data instanceof Uint8Array) {
    for (let start = 0; start < data.length; start += size) {
      yield data.subarray(start, Math.min(start + size, data.length));
    }
    return;
  }
  yield* rechunk(data, size);
}
