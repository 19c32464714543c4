/**
 * `waitUntilSearchable`: waits on WatchDocuments until each document is searchable in its
 * final form (or can never be), within one timeout (mirrors the Python and Go helpers).
 *
 * Documents given by id are looked up once (GetDocument) to learn their collection; a
 * collection's live documents are listed once. That first look has the calls' own deadlines,
 * not the wait's timeout, so even a tiny timeout reports the documents already settled. Then
 * one watch per collection (per 1,000 ids) runs, restricted to the documents still waiting;
 * the watch first sends each one's current state, then its changes. A watch that drops
 * (UNAVAILABLE) or ends is opened again, within the timeout. The timeout never raises: what is
 * still waiting is TIMED_OUT.
 */
import { ErrorCode } from "./gen/quire/v1/errors_pb.js";
import { type Document, DocumentIndexState, DocumentStatus } from "./gen/quire/v1/knowledge_pb.js";
import { isQuireError, QuireError } from "./errors.js";
import { backoffDelayMs, DEFAULT_RETRY, isRetryable } from "./policy.js";
import { runPool } from "./batches.js";

/** What became of one document. */
export type SearchableOutcome = "INDEXED" | "FAILED" | "NO_TEXT" | "DELETED" | "TIMED_OUT";

export interface DocumentOutcome {
  documentId: string;
  outcome: SearchableOutcome;
  /** For FAILED: the document's extract_error; "" otherwise. */
  reason: string;
  /** The document's last state seen (unset when never seen, e.g. not found). */
  document?: Document;
}

export interface SearchableResult {
  /** In the order of `documentIds` (`documents`); by ascending document id for a collection. */
  outcomes: DocumentOutcome[];
  /** False when any outcome is TIMED_OUT. */
  complete: boolean;
}

/** Which documents to wait for: ids, documents you already hold, or a collection's live ones. */
export type WaitTarget = { documentIds: readonly string[] } | { documents: readonly Document[] } | { collectionId: string };

export interface WaitOptions {
  /** How long to wait in all, in ms (default 60,000). */
  timeoutMs?: number;
  /** Aborting stops the wait and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Extra request headers of every call. */
  headers?: ConstructorParameters<typeof Headers>[0];
}

export const DEFAULT_WAIT_MS = 60_000;
/** WatchDocumentsRequest.document_ids holds at most this many ids. */
export const WATCH_IDS_MAX = 1000;
const LOOKUP_CONCURRENCY = 8;

type CallOptions = { timeoutMs?: number; signal?: AbortSignal; headers?: WaitOptions["headers"] };

/** The calls the wait is built on (`QuireClient` has them). */
export interface WatchSource {
  getDocument(request: { documentId: string }, options?: CallOptions): Promise<Document>;
  iterDocuments(request: { collectionId: string }, options?: CallOptions): AsyncIterable<Document>;
  watchDocuments(request: { collectionId: string; documentIds?: string[] }, options?: CallOptions): AsyncIterable<Document>;
}

/** The final outcome a document's state shows, or undefined while it is still pending. */
export function settledOutcome(doc: Document): Omit<DocumentOutcome, "documentId"> | undefined {
  if (doc.status === DocumentStatus.DELETED) return { outcome: "DELETED", reason: "", document: doc };
  if (doc.status === DocumentStatus.FAILED || doc.indexState === DocumentIndexState.FAILED) {
    return { outcome: "FAILED", reason: doc.extractError, document: doc };
  }
  if (doc.indexState === DocumentIndexState.NO_TEXT) return { outcome: "NO_TEXT", reason: "", document: doc };
  if (doc.indexState === DocumentIndexState.INDEXED) return { outcome: "INDEXED", reason: "", document: doc };
  return undefined;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

class Wait {
  readonly outcomes = new Map<string, DocumentOutcome>();
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private timedOut = false;
  private readonly onCallerAbort = (): void => this.controller.abort();

  constructor(
    private readonly source: WatchSource,
    private readonly options: WaitOptions,
  ) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, Math.max(0, timeoutMs));
    options.signal?.addEventListener("abort", this.onCallerAbort, { once: true });
    if (options.signal?.aborted) this.controller.abort();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Options of the watch calls: they end with the wait. */
  private callOptions(): CallOptions {
    const out: CallOptions = { signal: this.controller.signal };
    if (this.options.headers !== undefined) out.headers = this.options.headers;
    return out;
  }

  /** Options of the first look: only the caller's signal stops it, not the timeout. */
  private lookupOptions(): CallOptions {
    const out: CallOptions = {};
    if (this.options.signal !== undefined) out.signal = this.options.signal;
    if (this.options.headers !== undefined) out.headers = this.options.headers;
    return out;
  }

  private callerAborted(): boolean {
    return this.options.signal?.aborted ?? false;
  }

  /** Records a state; returns true when it settles the document. */
  record(doc: Document): boolean {
    const settled = settledOutcome(doc);
    if (settled === undefined) return false;
    this.outcomes.set(doc.documentId, { documentId: doc.documentId, ...settled });
    return true;
  }

  /** A failure caused by the wait's own end (timeout or the caller's abort), not by the server. */
  private stopped(): boolean {
    return this.controller.signal.aborted;
  }

  /** The documents behind `ids`, each looked up once; unknown ones are DELETED. */
  async lookUp(ids: readonly string[]): Promise<Document[]> {
    const found: Document[] = [];
    const tasks = [...new Set(ids)].map((documentId) => async () => {
      if (this.callerAborted()) return;
      try {
        found.push(await this.source.getDocument({ documentId }, this.lookupOptions()));
      } catch (err) {
        if (this.callerAborted()) return;
        if (!isQuireError(err, ErrorCode.DOCUMENT_NOT_FOUND)) throw err;
        this.outcomes.set(documentId, { documentId, outcome: "DELETED", reason: "" });
      }
    });
    await runPool(tasks, LOOKUP_CONCURRENCY);
    return found;
  }

  async listCollection(collectionId: string): Promise<Document[]> {
    const docs: Document[] = [];
    try {
      for await (const doc of this.source.iterDocuments({ collectionId }, this.lookupOptions())) docs.push(doc);
    } catch (err) {
      if (!this.callerAborted()) throw err;
    }
    return docs;
  }

  /** Watches every unsettled document of `docs`: one watch per collection and 1,000 ids. */
  async watch(docs: readonly Document[]): Promise<void> {
    const byCollection = new Map<string, string[]>();
    for (const doc of docs) {
      if (this.record(doc)) continue;
      const ids = byCollection.get(doc.collectionId) ?? [];
      if (!ids.includes(doc.documentId)) ids.push(doc.documentId);
      byCollection.set(doc.collectionId, ids);
    }
    const watches: Promise<void>[] = [];
    for (const [collectionId, ids] of byCollection) {
      for (let start = 0; start < ids.length; start += WATCH_IDS_MAX) {
        watches.push(this.watchOne(collectionId, ids.slice(start, start + WATCH_IDS_MAX)));
      }
    }
    try {
      await Promise.all(watches);
    } catch (err) {
      // One watch failed for good (e.g. the key lost its scope): stop the others too.
      this.controller.abort();
      await Promise.allSettled(watches);
      throw err;
    }
  }

  private async watchOne(collectionId: string, ids: string[]): Promise<void> {
    const waiting = new Set(ids);
    let failures = 0;
    while (waiting.size > 0 && !this.stopped()) {
      try {
        const stream = this.source.watchDocuments({ collectionId, documentIds: [...waiting] }, this.callOptions());
        for await (const doc of stream) {
          failures = 0;
          if (waiting.has(doc.documentId) && this.record(doc)) waiting.delete(doc.documentId);
          if (waiting.size === 0) return;
        }
        // The server ended the watch (a restart): open it again after a short pause.
      } catch (err) {
        if (this.stopped()) return;
        if (isQuireError(err, ErrorCode.COLLECTION_NOT_FOUND)) {
          // The collection was deleted while we waited: so were its documents.
          for (const documentId of waiting) this.outcomes.set(documentId, { documentId, outcome: "DELETED", reason: "" });
          return;
        }
        if (!(err instanceof QuireError && isRetryable(err))) throw err;
      }
      failures += 1;
      await sleep(backoffDelayMs(DEFAULT_RETRY, failures), this.controller.signal);
    }
  }

  finish(order: readonly string[]): SearchableResult {
    clearTimeout(this.timer);
    this.controller.abort();
    if (this.options.signal?.aborted && !this.timedOut) throw this.options.signal.reason;
    const outcomes = order.map(
      (documentId): DocumentOutcome =>
        this.outcomes.get(documentId) ?? { documentId, outcome: "TIMED_OUT", reason: "" },
    );
    return { outcomes, complete: outcomes.every((o) => o.outcome !== "TIMED_OUT") };
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.controller.abort();
    this.options.signal?.removeEventListener("abort", this.onCallerAbort);
  }
}

/**
 * Waits until every target document is INDEXED, FAILED (reason = extract_error), NO_TEXT or
 * DELETED (deleted or not found), or the timeout passes (the rest TIMED_OUT, `complete`
 * false). Throws the typed error of bad input or auth (e.g. `errors.CollectionNotFound` for a
 * collection target, `errors.PermissionDenied`).
 */
export async function waitUntilSearchable(
  source: WatchSource,
  target: WaitTarget,
  options: WaitOptions = {},
): Promise<SearchableResult> {
  const wait = new Wait(source, options);
  try {
    let order: string[];
    let docs: Document[];
    if ("collectionId" in target) {
      docs = await wait.listCollection(target.collectionId);
      order = docs.map((d) => d.documentId).sort();
    } else if ("documents" in target) {
      docs = [...target.documents];
      order = docs.map((d) => d.documentId);
    } else {
      order = [...target.documentIds];
      docs = await wait.lookUp(order);
    }
    await wait.watch(docs);
    return wait.finish(order);
  } finally {
    wait.dispose();
  }
}
