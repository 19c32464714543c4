/**
 * Splitting many documents into UploadDocuments calls: one call carries at most 1,000
 * documents (the server's bound) and at most `maxBytes` of file bytes in all.
 */
import type { JsonObject } from "@bufbuild/protobuf";

/** The most documents the server takes in one UploadDocuments call. */
export const MAX_BATCH_DOCUMENTS = 1000;

/**
 * Default byte bound of one call: half the server's default QUIRE_MAX_UPLOAD_BYTES (64 MiB),
 * so a batch stays clear of it and one transaction stays modest. Raise it with the server's.
 */
export const DEFAULT_MAX_BATCH_BYTES = 32 * 1024 * 1024;

/** One document of `uploadDocuments`. */
export interface UploadItem {
  fileName: string;
  /** The file's bytes (encode text yourself: `new TextEncoder().encode(text)`). */
  data: Uint8Array;
  /** Your key for the document (1–256 characters); an existing key replaces that document. */
  externalKey?: string;
  /** A JSON object; set: replaces the document's metadata. */
  metadata?: JsonObject;
  /** Used when the file name has no known extension. */
  mimeType?: string;
}

export interface BatchLimits {
  maxDocuments?: number;
  maxBytes?: number;
}

/**
 * Consecutive runs of `items`, each within the limits. An item larger than `maxBytes` on its
 * own gets a call of its own (the server then judges it). Order is kept.
 */
export function splitBatches<T>(items: readonly T[], size: (item: T) => number, limits: BatchLimits = {}): T[][] {
  const maxDocuments = Math.min(limits.maxDocuments ?? MAX_BATCH_DOCUMENTS, MAX_BATCH_DOCUMENTS);
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BATCH_BYTES;
  if (!(maxDocuments >= 1)) throw new RangeError(`maxDocuments must be 1–${MAX_BATCH_DOCUMENTS}, got ${maxDocuments}`);
  if (!(maxBytes >= 1)) throw new RangeError(`maxBytes must be at least 1, got ${maxBytes}`);
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const n = size(item);
    if (current.length > 0 && (current.length >= maxDocuments || bytes + n > maxBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += n;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Runs `tasks` with at most `concurrency` of them at once; resolves when all are done. */
export async function runPool(tasks: readonly (() => Promise<void>)[], concurrency: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const task = tasks[next++] as () => Promise<void>;
      await task();
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(concurrency) || 1, tasks.length));
  await Promise.all(Array.from({ length: workers }, worker));
}
