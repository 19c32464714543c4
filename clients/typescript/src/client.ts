/**
 * `QuireClient`: promise methods for every unary RPC of quire.v1 (response wrappers removed),
 * async iterables for the streams, typed errors, default deadlines per call kind and retries of
 * idempotent reads. Mirrors the Python `AsyncQuireClient`.
 */
import { readFile } from "node:fs/promises";
import type * as http2 from "node:http2";

import { create, isMessage, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import { type Client, Code, ConnectError, createClient, type Interceptor, type Transport } from "@connectrpc/connect";
import type { Http2SessionManager } from "@connectrpc/connect-node";

import {
  ApiKeySchema,
  type ApiKey,
  type GateProgress,
  type GateResult,
  GateResultSchema,
  type RetrievalPolicy,
  RetrievalPolicySchema,
  Scope,
  ScopeSchema,
  type ShadowReport,
  ShadowReportSchema,
} from "./gen/quire/v1/admin_pb.js";
import {
  AdminService,
  type GetGateStatusResponse,
  type ListApiKeysResponse,
  type WhoAmIResponse,
} from "./gen/quire/v1/admin_service_pb.js";
import {
  type Agent,
  AgentSchema,
  type Collection,
  CollectionSchema,
  type Document,
  DocumentSchema,
  type DocumentSlice,
  DocumentSliceSchema,
  type EmbeddingModel,
  type IndexStatus,
  IndexStatusSchema,
  type MetadataFilter,
  RetrievalMode,
  RetrievalModeSchema,
  UploadOutcome,
} from "./gen/quire/v1/knowledge_pb.js";
import {
  type DeleteDocumentsResponse,
  KnowledgeService,
  type ListAgentsResponse,
  type ListDocumentsResponse,
  type SearchKnowledgeResponse,
  type UploadDocumentRequestSchema,
  type UploadDocumentResponse,
  type UploadDocumentsRequestSchema,
  type UploadMetadataSchema,
  type UploadResult,
} from "./gen/quire/v1/knowledge_service_pb.js";
import {
  type CommandResult,
  CommandResultSchema,
  type DiscoveryCheck,
  type GrepResult,
  GrepResultSchema,
  type Namespace,
  type Page,
  type PageList,
  PageListSchema,
  type PageRead,
  PageReadSchema,
  type PageSyncProgress,
  type SearchResult,
  SearchResultSchema,
  type SyncReport,
  SyncReportSchema,
  type ToolDefinition,
} from "./gen/quire/v1/pages_pb.js";
import { PagesService, type SyncPagesRequestSchema } from "./gen/quire/v1/pages_service_pb.js";
import { type PageSearchConfig, PageSearchConfigSchema } from "./gen/quire/v1/search_config_pb.js";
import { type BatchLimits, runPool, splitBatches, type UploadItem } from "./batches.js";
import { errorClass, errors, fromConnectError, QuireError } from "./errors.js";
import { LARGE_FILE_BYTES, smallBatchSize, walkFolder, type FolderFile } from "./folder.js";
import { ConsistencyTokens, withConsistency } from "./consistency.js";
import { withCallPolicy } from "./interceptor.js";
import { DEFAULT_RETRY, DEFAULT_TIMEOUTS, type RetryPolicy, type Timeouts } from "./policy.js";
import { AsyncQueue } from "./queue.js";
import { abortable } from "./streams.js";
import { DEFAULT_BASE_URLS, openTransport, type WireProtocol } from "./transport.js";
import { CHUNK_SIZE, uploadChunks, type UploadSource } from "./uploads.js";
import { type SearchableResult, type WaitOptions, type WaitTarget, waitUntilSearchable } from "./waiting.js";

export const DEFAULT_BASE_URL = DEFAULT_BASE_URLS.grpc;
export const API_KEY_ENV = "QUIRE_API_KEY";
export const USER_AGENT = "quire-client-typescript/0.1.0";

export interface QuireClientOptions {
  /**
   * `http://host:port` (plaintext) or `https://host:port` (TLS). Default
   * `http://127.0.0.1:50051`, or `http://127.0.0.1:8080` with `protocol: "connect"`.
   */
  baseUrl?: string;
  /** Alias of `baseUrl`; a bare `host:port` means plaintext `http://host:port`. */
  address?: string;
  /** Sent as `authorization: Bearer <key>`. Default `$QUIRE_API_KEY`; no key → no header. */
  apiKey?: string;
  /** Default deadline per call kind in ms (merged over `DEFAULT_TIMEOUTS`). */
  timeouts?: Timeouts;
  /** Retry policy of idempotent reads (merged over `DEFAULT_RETRY`); `{maxAttempts: 1}` disables. */
  retry?: Partial<RetryPolicy>;
  /**
   * `"grpc"` (default) or `"connect"`: the Connect protocol with JSON bodies, against the
   * server's HTTP port (`--http-address`). Same methods, errors and deadlines (transport.ts).
   */
  protocol?: WireProtocol;
  /** With `protocol: "connect"`: `"2"` (default, h2c for `http://`) or `"1.1"` (no syncPages). */
  httpVersion?: "1.1" | "2";
  /** Options for `http2.connect` (e.g. `ca`, `cert`, `key` for a private CA or mTLS). */
  nodeOptions?: http2.ClientSessionOptions | http2.SecureClientSessionOptions;
  /** Extra interceptors, run after the auth interceptor. */
  interceptors?: Interceptor[];
  /**
   * A ready transport (tests, custom stacks). The client then adds no auth interceptor: include
   * `authInterceptor(key)` yourself.
   */
  transport?: Transport;
  /**
   * Default true: send the highest consistency token seen with every read, so that against a
   * server with read replicas the client reads its own writes (`consistency.ts`). False: reads
   * go to any healthy replica, possibly a little behind this client's writes.
   */
  sessionConsistency?: boolean;
}

/** Per-call options of every method. */
export interface CallOptions {
  /** Deadline in ms; overrides the kind's default. `Infinity` = none. For retried reads it covers all attempts. */
  timeoutMs?: number;
  /** Aborting cancels the call (a stream stops cooperatively). */
  signal?: AbortSignal;
  /** Extra request headers. */
  headers?: HeadersInit;
}

/** Decides a sync's DiscoveryCheck: true accepts, false aborts (`DiscoveryRejected`). */
export type DiscoveryValidator = (check: DiscoveryCheck) => boolean | Promise<boolean>;

export interface SyncStartOptions {
  namespace: string;
  /** The site's llms.txt or sitemap.xml URL, or its root. */
  url: string;
  publicUrl?: string;
  /** "markdown" (default), "mintlify", "fumadocs", "none". */
  transform?: string;
  indexVersion?: string;
  reindex?: boolean;
  /** The namespace's default language (BCP 47, default "en"), for pages whose own cannot be told. */
  language?: string;
  /**
   * A name from listModels that the server has loaded; default: the namespace's model (the deployment's for a new
   * namespace). Another than the namespace's needs `reindex: true` (every page is re-embedded with it), else the
   * sync is refused (`INVALID_REQUEST` on `start.embedding_model`).
   */
  embeddingModel?: string;
}

export interface SyncOptions extends CallOptions {
  /** When given, the server pauses after discovery and this callback decides. */
  validateDiscovery?: DiscoveryValidator;
}

export interface UploadMetadataOptions {
  collectionId: string;
  fileName: string;
  /** Used when the file name has no known extension. */
  mimeType?: string;
  /** Replaces this document's content (an edit). */
  documentId?: string;
  /**
   * Your key for the document (1–256 characters, no control characters), unique in the
   * collection: an upload with a key in use replaces that document, or changes nothing when
   * bytes, name, type and metadata are the same. Left out: no key.
   */
  externalKey?: string;
  /** A JSON object (bounds: docs/knowledge.md); set: replaces the document's metadata. */
  metadata?: JsonObject;
}

/** One document: by id, or by its collection and external key. */
export type DocumentRef = { documentId: string } | { collectionId: string; externalKey: string };

/** Options of `uploadDocuments`. */
export interface UploadDocumentsOptions extends CallOptions, BatchLimits {}

/** Options of `uploadFolder`. */
export interface UploadFolderOptions extends CallOptions {
  /** Calls in flight at once (default 4). */
  concurrency?: number;
  /** The external key of a file (default: its path relative to the folder, with "/"); undefined: no key. */
  key?: (relativePath: string) => string | undefined;
  /** The metadata of a file (default: none, so a replaced document keeps its own). */
  metadata?: (relativePath: string) => JsonObject | undefined | Promise<JsonObject | undefined>;
  /** Byte bound of one batch call (default `DEFAULT_MAX_BATCH_BYTES`). */
  maxBatchBytes?: number;
}

/** What `uploadFolder` did with one file. */
export interface FolderUploadResult {
  /** The path relative to the folder, with "/". */
  path: string;
  externalKey: string | undefined;
  /** UNSPECIFIED when the file failed. */
  outcome: UploadOutcome;
  document?: Document;
  /** Why the file was not stored: the server's typed error, or the local read error. */
  error?: Error;
}

/** A retrieval mode as enum value or name: `"hybrid"`, `"HYBRID"`, `"RETRIEVAL_MODE_HYBRID"`. */
export type ModeArg = RetrievalMode | string;
/** A scope as enum value or name: `"read"`, `"SCOPE_READ"`. */
export type ScopeArg = Scope | string;
export type PageSearchConfigInit = MessageInitShape<typeof PageSearchConfigSchema>;
type Int64Arg = number | bigint;

/** Adds `authorization: Bearer <key>` to every request. */
export function authInterceptor(apiKey: string): Interceptor {
  return (next) => async (req) => {
    req.header.set("authorization", `Bearer ${apiKey}`);
    return next(req);
  };
}

/** `host:port` → `http://host:port`; URLs unchanged (trailing slash removed). */
export function normaliseBaseUrl(address: string): string {
  const url = address.includes("://") ? address : `http://${address}`;
  return url.replace(/\/+$/, "");
}

export function isSyncReport(item: PageSyncProgress | SyncReport): item is SyncReport {
  return isMessage(item, SyncReportSchema);
}

export function isGateResult(item: GateProgress | GateResult): item is GateResult {
  return isMessage(item, GateResultSchema);
}

function enumValue(
  schema: { values: readonly { name: string; number: number }[] },
  prefix: string,
  value: number | string | undefined,
): number {
  if (value === undefined) return 0;
  if (typeof value === "number") return value;
  let name = value.toUpperCase();
  if (!name.startsWith(prefix)) name = prefix + name;
  const found = schema.values.find((v) => v.name === name);
  if (!found) throw new TypeError(`unknown ${prefix.slice(0, -1).toLowerCase()}: ${value}`);
  return found.number;
}

export function retrievalMode(mode: ModeArg | undefined): RetrievalMode {
  return enumValue(RetrievalModeSchema, "RETRIEVAL_MODE_", mode) as RetrievalMode;
}

export function scopeValues(scopes: Iterable<ScopeArg>): Scope[] {
  return [...scopes].map((s) => enumValue(ScopeSchema, "SCOPE_", s) as Scope);
}

function big(value: Int64Arg | undefined): bigint {
  return value === undefined ? 0n : BigInt(value);
}

function mapError(err: unknown): unknown {
  return err instanceof ConnectError ? fromConnectError(err) : err;
}

/** The UploadMetadata message of one document; `externalKey` keeps its presence (unset ≠ ""). */
function uploadMetadata(
  collectionId: string,
  item: Omit<UploadMetadataOptions, "collectionId">,
): MessageInitShape<typeof UploadMetadataSchema> {
  return {
    collectionId,
    fileName: item.fileName,
    mimeType: item.mimeType ?? "",
    documentId: item.documentId ?? "",
    ...(item.externalKey !== undefined ? { externalKey: item.externalKey } : {}),
    ...(item.metadata !== undefined ? { metadata: item.metadata } : {}),
  };
}

/** The request fields naming one document (the server refuses both ways or neither). */
function documentRef(ref: DocumentRef): { documentId: string; collectionId: string; externalKey?: string } {
  const out: { documentId: string; collectionId: string; externalKey?: string } = {
    documentId: "documentId" in ref ? ref.documentId : "",
    collectionId: "collectionId" in ref ? ref.collectionId : "",
  };
  if ("externalKey" in ref && ref.externalKey !== undefined) out.externalKey = ref.externalKey;
  return out;
}

/** Follows `next` cursors lazily: one page request per page the consumer reaches. */
async function* paged<T>(fetch: (cursor: string) => Promise<{ items: T[]; next: string }>): AsyncGenerator<T, void, undefined> {
  let cursor = "";
  for (;;) {
    const page = await fetch(cursor);
    yield* page.items;
    if (!page.next) return;
    cursor = page.next;
  }
}

/** A per-document refusal of UploadDocuments as the typed error a call would have thrown. */
function resultError(result: UploadResult): QuireError | undefined {
  const detail = result.error;
  if (detail === undefined) return undefined;
  const cls = errorClass(detail.code);
  return new cls(detail.message || "document refused", { detail });
}

/** Request headers as accepted by `new Headers(init)`. */
export type HeadersInit = ConstructorParameters<typeof Headers>[0];

type ConnectCallOptions = { timeoutMs?: number; signal?: AbortSignal; headers?: HeadersInit };

export class QuireClient {
  readonly baseUrl: string;
  /** The highest consistency token seen: `.current` to hand it over, `.advance(t)` to take one. */
  readonly consistency: ConsistencyTokens;
  private readonly transport: Transport;
  private readonly sessionManager: Http2SessionManager | undefined;
  private readonly pages: Client<typeof PagesService>;
  private readonly knowledge: Client<typeof KnowledgeService>;
  private readonly admin: Client<typeof AdminService>;

  constructor(options: QuireClientOptions = {}) {
    const protocol = options.protocol ?? "grpc";
    this.baseUrl = normaliseBaseUrl(options.baseUrl ?? options.address ?? DEFAULT_BASE_URLS[protocol]);
    const timeouts: Timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    const retry: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
    let transport: Transport;
    if (options.transport) {
      transport = options.transport;
    } else {
      const apiKey = options.apiKey ?? process.env[API_KEY_ENV];
      const interceptors: Interceptor[] = [
        (next) => async (req) => {
          req.header.set("user-agent", USER_AGENT);
          return next(req);
        },
      ];
      if (apiKey) interceptors.push(authInterceptor(apiKey));
      interceptors.push(...(options.interceptors ?? []));
      const opened = openTransport({
        baseUrl: this.baseUrl,
        protocol,
        httpVersion: options.httpVersion,
        interceptors,
        nodeOptions: options.nodeOptions,
      });
      transport = opened.transport;
      this.sessionManager = opened.sessionManager;
    }
    // Deadlines and retries are applied by the transport, also to a ready one; each attempt
    // of a read carries the consistency token.
    this.consistency = new ConsistencyTokens(options.sessionConsistency ?? true);
    this.transport = withCallPolicy(withConsistency(transport, this.consistency), timeouts, retry);
    this.pages = createClient(PagesService, this.transport);
    this.knowledge = createClient(KnowledgeService, this.transport);
    this.admin = createClient(AdminService, this.transport);
  }

  /** Closes the HTTP/2 connection (calls in flight fail); nothing to close over HTTP/1.1. */
  close(): void {
    this.sessionManager?.abort();
  }

  [Symbol.asyncDispose](): Promise<void> {
    this.close();
    return Promise.resolve();
  }

  // ------------------------------------------------------------------ plumbing

  /** One unary call; the transport's call policy applies its deadline and retries. */
  private async unary<O>(call: (options: ConnectCallOptions) => Promise<O>, options: CallOptions | undefined): Promise<O> {
    try {
      return await call(this.callOptions(options));
    } catch (err) {
      throw mapError(err);
    }
  }

  /** The call's options for Connect; `timeoutMs` stays as given (see `withCallPolicy`). */
  private callOptions(options: CallOptions | undefined): ConnectCallOptions {
    const out: ConnectCallOptions = {};
    if (options?.timeoutMs !== undefined) out.timeoutMs = options.timeoutMs;
    if (options?.signal) out.signal = options.signal;
    if (options?.headers) out.headers = options.headers;
    return out;
  }

  private streamOptions(options: CallOptions | undefined, signal: AbortSignal): ConnectCallOptions {
    const out = this.callOptions(options);
    out.signal = options?.signal ? AbortSignal.any([options.signal, signal]) : signal;
    return out;
  }

  /** A server stream as an async iterable; leaving the loop early cancels the call. */
  private async *serverStream<R, O>(
    open: (options: ConnectCallOptions) => AsyncIterable<R>,
    pick: (reply: R) => O,
    options: CallOptions | undefined,
  ): AsyncGenerator<O, void, undefined> {
    const controller = new AbortController();
    try {
      for await (const reply of abortable(open(this.streamOptions(options, controller.signal)), controller)) {
        yield pick(reply);
      }
    } catch (err) {
      throw mapError(err);
    } finally {
      controller.abort();
    }
  }

  // ------------------------------------------------------------------ PagesService

  /**
   * Synchronises a site; yields `PageSyncProgress` messages and finally the `SyncReport`
   * (`isSyncReport(item)` tells them apart).
   *
   * With `validateDiscovery` the server pauses after discovery and the callback decides: true
   * accepts, false aborts (the call then fails with `DiscoveryRejected`, stored state is
   * untouched). If the callback throws, the sync is aborted and the error propagates. The
   * request side stays open until the server ends the call; leaving the loop early (or
   * aborting `signal`) cancels the call, which stops the sync cooperatively.
   */
  syncPages(start: SyncStartOptions, options: SyncOptions = {}): AsyncIterable<PageSyncProgress | SyncReport> {
    return this.syncPagesImpl(start, options);
  }

  private async *syncPagesImpl(
    start: SyncStartOptions,
    options: SyncOptions,
  ): AsyncGenerator<PageSyncProgress | SyncReport, void, undefined> {
    const validate = options.validateDiscovery;
    const requests = new AsyncQueue<MessageInitShape<typeof SyncPagesRequestSchema>>();
    const decision = (accept: boolean): MessageInitShape<typeof SyncPagesRequestSchema> => ({
      message: { case: "decision", value: { accept } },
    });
    requests.push({
      message: {
        case: "start",
        value: {
          namespace: start.namespace,
          url: start.url,
          publicUrl: start.publicUrl ?? "",
          transform: start.transform ?? "",
          indexVersion: start.indexVersion ?? "",
          reindex: start.reindex ?? false,
          validateDiscovery: validate !== undefined,
          language: start.language ?? "",
          embeddingModel: start.embeddingModel ?? "",
        },
      },
    });
    const controller = new AbortController();
    try {
      const replies = this.pages.syncPages(requests, this.streamOptions(options, controller.signal));
      for await (const reply of abortable(replies, controller)) {
        const message = reply.message;
        if (message.case === "progress" || message.case === "report") {
          yield message.value;
        } else if (message.case === "discoveryCheck") {
          let accept = true;
          if (validate) {
            try {
              accept = Boolean(await validate(message.value));
            } catch (err) {
              requests.push(decision(false));
              throw err;
            }
          }
          requests.push(decision(accept));
        }
      }
    } catch (err) {
      throw mapError(err);
    } finally {
      requests.close();
      controller.abort();
    }
  }

  /** Hybrid search; `config` (planner settings) needs a key with scope `tune`. */
  async searchPages(
    request: {
      namespace: string;
      query: string;
      alternatives?: string[];
      limit?: number;
      maxOutputBytes?: number;
      config?: PageSearchConfigInit;
    },
    options?: CallOptions,
  ): Promise<SearchResult> {
    const reply = await this.unary(
      (o) =>
        this.pages.searchPages(
          {
            namespace: request.namespace,
            query: request.query,
            alternatives: request.alternatives ?? [],
            limit: request.limit ?? 0,
            maxOutputBytes: request.maxOutputBytes ?? 0,
            ...(request.config ? { config: request.config } : {}),
          },
          o,
        ),
      options,
    );
    return reply.result ?? create(SearchResultSchema);
  }

  /** A slice of a page in code points; a stale pinned `revision` throws `errors.PageChanged`. */
  async readPage(
    request: { namespace: string; path: string; revision?: string; offset?: Int64Arg; maxChars?: number },
    options?: CallOptions,
  ): Promise<PageRead> {
    const reply = await this.unary(
      (o) =>
        this.pages.readPage(
          {
            namespace: request.namespace,
            path: request.path,
            revision: request.revision ?? "",
            offset: big(request.offset),
            maxChars: request.maxChars ?? 0,
          },
          o,
        ),
      options,
    );
    return reply.pageRead ?? create(PageReadSchema);
  }

  /** One page of the listing; check `restartRequired` when passing a cursor. */
  async listPages(
    request: { namespace: string; prefix?: string; cursor?: string; limit?: number },
    options?: CallOptions,
  ): Promise<PageList> {
    const reply = await this.unary(
      (o) =>
        this.pages.listPages(
          {
            namespace: request.namespace,
            prefix: request.prefix ?? "",
            cursor: request.cursor ?? "",
            limit: request.limit ?? 0,
          },
          o,
        ),
      options,
    );
    return reply.pageList ?? create(PageListSchema);
  }

  /** Literal substring search; `complete=false` means absence cannot be concluded. */
  async grepPages(
    request: { namespace: string; query: string; prefix?: string; ignoreCase?: boolean; limit?: number },
    options?: CallOptions,
  ): Promise<GrepResult> {
    const reply = await this.unary(
      (o) =>
        this.pages.grepPages(
          {
            namespace: request.namespace,
            query: request.query,
            prefix: request.prefix ?? "",
            ignoreCase: request.ignoreCase ?? false,
            limit: request.limit ?? 0,
          },
          o,
        ),
      options,
    );
    return reply.result ?? create(GrepResultSchema);
  }

  /** One bounded read-only command (ls, tree, find, cat, head, tail, wc, grep, rg). */
  async runCommand(request: { namespace: string; command: string }, options?: CallOptions): Promise<CommandResult> {
    const reply = await this.unary(
      (o) => this.pages.runCommand({ namespace: request.namespace, command: request.command }, o),
      options,
    );
    return reply.result ?? create(CommandResultSchema);
  }

  /**
   * The agent tools with this key's bounds: JSON Schema (`inputSchema`) and the MCP, OpenAI and
   * Anthropic shapes. A `namespace` (`agentId`) in `binding` binds the pages (knowledge) tools
   * to it: their schemas leave that argument out (docs/agents.md).
   */
  async describeTools(
    options?: CallOptions,
    binding: { namespace?: string; agentId?: string } = {},
  ): Promise<ToolDefinition[]> {
    const request = { namespace: binding.namespace ?? "", agentId: binding.agentId ?? "" };
    const reply = await this.unary((o) => this.pages.describeTools(request, o), options);
    return reply.tools;
  }

  /** The last stored SyncReport of a namespace. */
  async getSyncReport(request: { namespace: string }, options?: CallOptions): Promise<SyncReport> {
    const reply = await this.unary((o) => this.pages.getSyncReport({ namespace: request.namespace }, o), options);
    return reply.report ?? create(SyncReportSchema);
  }

  async listNamespaces(options?: CallOptions): Promise<Namespace[]> {
    const reply = await this.unary((o) => this.pages.listNamespaces({}, o), options);
    return reply.namespaces;
  }

  /** Every namespace by name (ListNamespaces is not paged: one call). */
  async *iterNamespaces(options?: CallOptions): AsyncGenerator<Namespace, void, undefined> {
    yield* await this.listNamespaces(options);
  }

  /**
   * Every page of a namespace (under `prefix`) in path order, following `nextCursor` lazily.
   * When the namespace changes mid-listing (`restartRequired`) it throws `errors.PageChanged`:
   * iterate again.
   */
  iterPages(
    request: { namespace: string; prefix?: string; pageSize?: number },
    options?: CallOptions,
  ): AsyncGenerator<Page, void, undefined> {
    return paged(async (cursor) => {
      const list = await this.listPages(
        {
          namespace: request.namespace,
          cursor,
          ...(request.prefix !== undefined ? { prefix: request.prefix } : {}),
          ...(request.pageSize ? { limit: request.pageSize } : {}),
        },
        options,
      );
      if (list.restartRequired) {
        throw new errors.PageChanged(`namespace ${request.namespace} changed during the listing; iterate again`, {
          grpcCode: Code.FailedPrecondition,
        });
      }
      return { items: list.pages, next: list.nextCursor };
    });
  }

  // ------------------------------------------------------------------ KnowledgeService

  /** `embeddingModel`: a name from listModels that the server has loaded (default: the deployment's); it changes only by rebuildIndex with another embeddingModel. */
  async createCollection(request: { name: string; embeddingModel?: string }, options?: CallOptions): Promise<Collection> {
    const reply = await this.unary(
      (o) => this.knowledge.createCollection({ name: request.name, embeddingModel: request.embeddingModel ?? "" }, o),
      options,
    );
    return reply.collection ?? create(CollectionSchema);
  }

  /** The embedding models the deployment knows: dimensions, prepared, loaded, default. */
  async listModels(options?: CallOptions): Promise<EmbeddingModel[]> {
    const reply = await this.unary((o) => this.knowledge.listModels({}, o), options);
    return reply.models;
  }

  async getCollection(request: { collectionId: string }, options?: CallOptions): Promise<Collection> {
    const reply = await this.unary(
      (o) => this.knowledge.getCollection({ collectionId: request.collectionId }, o),
      options,
    );
    return reply.collection ?? create(CollectionSchema);
  }

  /** Non-deleted collections by name. */
  async listCollections(options?: CallOptions): Promise<Collection[]> {
    const reply = await this.unary((o) => this.knowledge.listCollections({}, o), options);
    return reply.collections;
  }

  /** Every non-deleted collection by name (ListCollections is not paged: one call). */
  async *iterCollections(options?: CallOptions): AsyncGenerator<Collection, void, undefined> {
    yield* await this.listCollections(options);
  }

  /** Soft-deletes; returns the deleted collection. */
  async deleteCollection(request: { collectionId: string }, options?: CallOptions): Promise<Collection> {
    const reply = await this.unary(
      (o) => this.knowledge.deleteCollection({ collectionId: request.collectionId }, o),
      options,
    );
    return reply.collection ?? create(CollectionSchema);
  }

  /**
   * Uploads a file: the `metadata` message first, then the bytes in 1 MiB messages. `data` is
   * a `Uint8Array`/`Buffer`, a file path (`string` — always a path) or an (async) iterable of
   * byte chunks of any size. Never retried. `uploadDocumentWithOutcome` also says what the
   * upload did (created, replaced, unchanged, metadata updated).
   */
  async uploadDocument(
    metadata: UploadMetadataOptions,
    data: UploadSource,
    options?: CallOptions,
  ): Promise<Document> {
    const reply = await this.uploadDocumentWithOutcome(metadata, data, options);
    return reply.document ?? create(DocumentSchema);
  }

  /** `uploadDocument`, answering the whole response: `document` and `outcome`. */
  async uploadDocumentWithOutcome(
    metadata: UploadMetadataOptions,
    data: UploadSource,
    options?: CallOptions,
  ): Promise<UploadDocumentResponse> {
    // A failure reading `data` (e.g. a missing file) is rethrown as is, not as a call error.
    // (Errors Connect injects into this generator at a `yield` are not source errors.)
    let sourceError: { error: unknown } | undefined;
    async function* requests(): AsyncGenerator<MessageInitShape<typeof UploadDocumentRequestSchema>> {
      yield { message: { case: "metadata", value: uploadMetadata(metadata.collectionId, metadata) } };
      const chunks = uploadChunks(data);
      try {
        for (;;) {
          let next: IteratorResult<Uint8Array>;
          try {
            next = await chunks.next();
          } catch (error) {
            sourceError = { error };
            throw error;
          }
          if (next.done) return;
          yield { message: { case: "data", value: next.value } };
        }
      } finally {
        await chunks.return(undefined); // closes a file being read when the call ends early
      }
    }
    try {
      const reply = await this.knowledge.uploadDocument(requests(), this.callOptions(options));
      return reply;
    } catch (err) {
      if (sourceError !== undefined) throw sourceError.error;
      throw mapError(err);
    }
  }

  /**
   * Uploads many documents over UploadDocuments: one call per 1,000 documents or `maxBytes`
   * of bytes (default 32 MiB), calls one after another. Results come in input order with
   * `index` = position in `items`; a document the server refused has `error` set and the
   * others are stored. A failed call (auth, a batch over the server's byte limit, the
   * network) throws its typed error; the calls before it stay stored (with keys, running the
   * upload again is safe).
   */
  async uploadDocuments(
    collectionId: string,
    items: readonly UploadItem[],
    options: UploadDocumentsOptions = {},
  ): Promise<UploadResult[]> {
    const results: UploadResult[] = [];
    let offset = 0;
    for (const batch of splitBatches(items, (item) => item.data.length, options)) {
      for (const result of await this.uploadBatch(collectionId, batch, options)) {
        result.index += offset;
        results.push(result);
      }
      offset += batch.length;
    }
    return results;
  }

  /** One UploadDocuments call. */
  private async uploadBatch(
    collectionId: string,
    batch: readonly UploadItem[],
    options: CallOptions | undefined,
  ): Promise<UploadResult[]> {
    function* requests(): Generator<MessageInitShape<typeof UploadDocumentsRequestSchema>> {
      for (const item of batch) {
        yield { message: { case: "metadata", value: uploadMetadata(collectionId, item) } };
        for (let start = 0; start < item.data.length; start += CHUNK_SIZE) {
          yield { message: { case: "data", value: item.data.subarray(start, start + CHUNK_SIZE) } };
        }
      }
    }
    async function* stream(): AsyncGenerator<MessageInitShape<typeof UploadDocumentsRequestSchema>> {
      yield* requests();
    }
    try {
      const reply = await this.knowledge.uploadDocuments(stream(), this.callOptions(options));
      return reply.results;
    } catch (err) {
      throw mapError(err);
    }
  }

  /**
   * Uploads every file under `dir` (hidden ones left out): files up to 1 MiB in UploadDocuments
   * batches, larger ones streamed one by one; `concurrency` calls at once (default 4). Each
   * file's key is its path relative to `dir` (with "/") unless `key` says otherwise, so a
   * second run changes nothing (UNCHANGED). Never stops at a failure: every file gets a
   * result, in path order, with `error` when it was not stored.
   */
  async uploadFolder(collectionId: string, dir: string, options: UploadFolderOptions = {}): Promise<FolderUploadResult[]> {
    const files = await walkFolder(dir);
    const keyOf = options.key ?? ((relativePath: string) => relativePath);
    const results = files.map(
      (file): FolderUploadResult => ({
        path: file.relativePath,
        externalKey: keyOf(file.relativePath),
        outcome: UploadOutcome.UNSPECIFIED,
      }),
    );
    const concurrency = options.concurrency ?? 4;
    const small: number[] = [];
    const tasks: (() => Promise<void>)[] = [];
    files.forEach((file, i) => {
      if (file.sizeBytes > LARGE_FILE_BYTES) tasks.push(() => this.uploadLargeFile(collectionId, file, results[i] as FolderUploadResult, options));
      else small.push(i);
    });
    const batches = splitBatches(small, (i) => (files[i] as FolderFile).sizeBytes, {
      maxDocuments: smallBatchSize(small.length, concurrency),
      ...(options.maxBatchBytes !== undefined ? { maxBytes: options.maxBatchBytes } : {}),
    });
    for (const batch of batches) {
      tasks.push(() => this.uploadSmallFiles(collectionId, batch.map((i) => [files[i] as FolderFile, results[i] as FolderUploadResult] as const), options));
    }
    await runPool(tasks, concurrency);
    return results;
  }

  private async uploadLargeFile(
    collectionId: string,
    file: FolderFile,
    result: FolderUploadResult,
    options: UploadFolderOptions,
  ): Promise<void> {
    try {
      const metadata = await options.metadata?.(file.relativePath);
      const reply = await this.uploadDocumentWithOutcome(
        {
          collectionId,
          fileName: file.fileName,
          ...(result.externalKey !== undefined ? { externalKey: result.externalKey } : {}),
          ...(metadata !== undefined ? { metadata } : {}),
        },
        file.path,
        options,
      );
      result.outcome = reply.outcome;
      if (reply.document) result.document = reply.document;
    } catch (err) {
      result.error = err instanceof Error ? err : new Error(String(err));
    }
  }

  private async uploadSmallFiles(
    collectionId: string,
    entries: readonly (readonly [FolderFile, FolderUploadResult])[],
    options: UploadFolderOptions,
  ): Promise<void> {
    const items: UploadItem[] = [];
    const sent: FolderUploadResult[] = [];
    for (const [file, result] of entries) {
      try {
        const metadata = await options.metadata?.(file.relativePath);
        items.push({
          fileName: file.fileName,
          data: await readFile(file.path),
          ...(result.externalKey !== undefined ? { externalKey: result.externalKey } : {}),
          ...(metadata !== undefined ? { metadata } : {}),
        });
        sent.push(result);
      } catch (err) {
        result.error = err instanceof Error ? err : new Error(String(err));
      }
    }
    if (items.length === 0) return;
    let replies: UploadResult[];
    try {
      replies = await this.uploadBatch(collectionId, items, options);
    } catch (err) {
      // The whole call failed: nothing of this batch was written.
      for (const result of sent) result.error = err instanceof Error ? err : new Error(String(err));
      return;
    }
    for (const reply of replies) {
      const result = sent[reply.index];
      if (result === undefined) continue;
      result.outcome = reply.outcome;
      if (reply.document) result.document = reply.document;
      const error = resultError(reply);
      if (error) result.error = error;
    }
  }

  /** One document, by id or by `{ collectionId, externalKey }`. */
  async getDocument(request: DocumentRef, options?: CallOptions): Promise<Document> {
    const reply = await this.unary((o) => this.knowledge.getDocument(documentRef(request), o), options);
    return reply.document ?? create(DocumentSchema);
  }

  /** One page (`documents`, `nextCursor`), newest first, optionally filtered; see `iterDocuments` for all. */
  async listDocuments(
    request: { collectionId: string; cursor?: string; limit?: number; filter?: MetadataFilter },
    options?: CallOptions,
  ): Promise<ListDocumentsResponse> {
    return this.unary(
      (o) =>
        this.knowledge.listDocuments(
          {
            collectionId: request.collectionId,
            cursor: request.cursor ?? "",
            limit: request.limit ?? 0,
            ...(request.filter ? { filter: request.filter } : {}),
          },
          o,
        ),
      options,
    );
  }

  /** Every (matching) document of a collection, newest first, following `nextCursor` lazily. */
  iterDocuments(
    request: { collectionId: string; filter?: MetadataFilter; pageSize?: number },
    options?: CallOptions,
  ): AsyncGenerator<Document, void, undefined> {
    return paged(async (cursor) => {
      const page = await this.listDocuments(
        {
          collectionId: request.collectionId,
          cursor,
          ...(request.pageSize ? { limit: request.pageSize } : {}),
          ...(request.filter ? { filter: request.filter } : {}),
        },
        options,
      );
      return { items: page.documents, next: page.nextCursor };
    });
  }

  /** Removes a document, by id or by `{ collectionId, externalKey }`; returns it as deleted. */
  async deleteDocument(request: DocumentRef, options?: CallOptions): Promise<Document> {
    const reply = await this.unary((o) => this.knowledge.deleteDocument(documentRef(request), o), options);
    return reply.document ?? create(DocumentSchema);
  }

  /**
   * Removes a collection's documents named by `externalKeys`, by `documentIds` (1–1,000 each)
   * or matching `filter` — exactly one of them — in one transaction. Keys and ids no live
   * document held come back in `missingKeys` / `missingDocumentIds`.
   */
  async deleteDocuments(
    request: { collectionId: string; externalKeys?: string[]; documentIds?: string[]; filter?: MetadataFilter },
    options?: CallOptions,
  ): Promise<DeleteDocumentsResponse> {
    return this.unary(
      (o) =>
        this.knowledge.deleteDocuments(
          {
            collectionId: request.collectionId,
            externalKeys: request.externalKeys ?? [],
            documentIds: request.documentIds ?? [],
            ...(request.filter ? { filter: request.filter } : {}),
          },
          o,
        ),
      options,
    );
  }

  /**
   * Changes a document's metadata without re-uploading it: `patch` is a JSON merge patch (a
   * null removes its key) unless `replace` is true (then it becomes the metadata). Returns
   * the document; an unchanged result writes nothing (same revision).
   */
  async updateDocumentMetadata(
    request: DocumentRef & { patch: JsonObject; replace?: boolean },
    options?: CallOptions,
  ): Promise<Document> {
    const reply = await this.unary(
      (o) =>
        this.knowledge.updateDocumentMetadata(
          { ...documentRef(request), patch: request.patch, replace: request.replace ?? false },
          o,
        ),
      options,
    );
    return reply.document ?? create(DocumentSchema);
  }

  /**
   * Waits on WatchDocuments until each document is searchable in its final form: INDEXED,
   * FAILED (reason = extract_error), NO_TEXT, DELETED (or not found) — or TIMED_OUT when
   * `timeoutMs` (default 60,000) passes first; `complete` is false then. Never throws for the
   * timeout; throws the typed error of bad input or auth. Target: `{ documentIds }`,
   * `{ documents }` (Documents you hold, no lookup) or `{ collectionId }` (its live documents).
   */
  waitUntilSearchable(target: WaitTarget, options: WaitOptions = {}): Promise<SearchableResult> {
    return waitUntilSearchable(this, target, options);
  }

  /**
   * Yields every (given) document's current state, then a Document at each change of status
   * or index state; runs until cancelled (no default deadline). `documentIds` (at most 1,000)
   * restricts it to those documents.
   */
  watchDocuments(request: { collectionId: string; documentIds?: string[] }, options?: CallOptions): AsyncIterable<Document> {
    return this.serverStream(
      (o) =>
        this.knowledge.watchDocuments({ collectionId: request.collectionId, documentIds: request.documentIds ?? [] }, o),
      (reply) => {
        // The state's token: a read after it (a search once a document is INDEXED) is then
        // served by a replica only when it has replayed that state.
        this.consistency.observeToken(reply.consistencyToken);
        return reply.document ?? create(DocumentSchema);
      },
      options,
    );
  }

  /** Creates or replaces an agent's attachments; increments `configVersion`. */
  async upsertAgent(
    request: { agentId: string; attachedCollectionIds?: string[] },
    options?: CallOptions,
  ): Promise<Agent> {
    const reply = await this.unary(
      (o) =>
        this.knowledge.upsertAgent(
          { agentId: request.agentId, attachedCollectionIds: request.attachedCollectionIds ?? [] },
          o,
        ),
      options,
    );
    return reply.agent ?? create(AgentSchema);
  }

  async getAgent(request: { agentId: string }, options?: CallOptions): Promise<Agent> {
    const reply = await this.unary((o) => this.knowledge.getAgent({ agentId: request.agentId }, o), options);
    return reply.agent ?? create(AgentSchema);
  }

  /** Deletes the agent (its collections stay); returns it as it was. */
  async deleteAgent(request: { agentId: string }, options?: CallOptions): Promise<Agent> {
    const reply = await this.unary((o) => this.knowledge.deleteAgent({ agentId: request.agentId }, o), options);
    return reply.agent ?? create(AgentSchema);
  }

  /** One page (`agents`, `nextCursor`) of the organisation's agents by id; see `iterAgents`. */
  async listAgents(request: { cursor?: string; limit?: number } = {}, options?: CallOptions): Promise<ListAgentsResponse> {
    return this.unary(
      (o) => this.knowledge.listAgents({ cursor: request.cursor ?? "", limit: request.limit ?? 0 }, o),
      options,
    );
  }

  /** Every agent of the organisation by id, following `nextCursor` lazily. */
  iterAgents(request: { pageSize?: number } = {}, options?: CallOptions): AsyncGenerator<Agent, void, undefined> {
    return paged(async (cursor) => {
      const page = await this.listAgents({ cursor, ...(request.pageSize ? { limit: request.pageSize } : {}) }, options);
      return { items: page.agents, next: page.nextCursor };
    });
  }

  /** Hits (`hits`), the serving `mode` and `cached`. Give `agentId` or `collectionIds`.
   * `mode` picks the retrieval mode for this call (default: the organisation's policy; the
   * kill switch overrides both). `filter` keeps documents whose metadata matches (in every
   * arm of every mode); `includeMetadata` returns each hit's document metadata. */
  async searchKnowledge(
    request: {
      query: string;
      agentId?: string;
      collectionIds?: string[];
      limit?: number;
      mode?: ModeArg;
      filter?: MetadataFilter;
      includeMetadata?: boolean;
    },
    options?: CallOptions,
  ): Promise<SearchKnowledgeResponse> {
    return this.unary(
      (o) =>
        this.knowledge.searchKnowledge(
          {
            agentId: request.agentId ?? "",
            collectionIds: request.collectionIds ?? [],
            query: request.query,
            limit: request.limit ?? 0,
            mode: retrievalMode(request.mode),
            ...(request.filter ? { filter: request.filter } : {}),
            includeMetadata: request.includeMetadata ?? false,
          },
          o,
        ),
      options,
    );
  }

  /** Up to 4,000 code points of a document's current extracted text. */
  async readDocument(
    request: { documentId: string; agentId?: string; collectionIds?: string[]; offset?: Int64Arg; maxChars?: number },
    options?: CallOptions,
  ): Promise<DocumentSlice> {
    const reply = await this.unary(
      (o) =>
        this.knowledge.readDocument(
          {
            agentId: request.agentId ?? "",
            collectionIds: request.collectionIds ?? [],
            documentId: request.documentId,
            offset: big(request.offset),
            maxChars: request.maxChars ?? 0,
          },
          o,
        ),
      options,
    );
    return reply.slice ?? create(DocumentSliceSchema);
  }

  async getIndexStatus(request: { collectionId: string }, options?: CallOptions): Promise<IndexStatus> {
    const reply = await this.unary(
      (o) => this.knowledge.getIndexStatus({ collectionId: request.collectionId }, o),
      options,
    );
    return reply.status ?? create(IndexStatusSchema);
  }

  /** Yields IndexStatus on every generation change; runs until cancelled. */
  watchIndexStatus(request: { collectionId: string }, options?: CallOptions): AsyncIterable<IndexStatus> {
    return this.serverStream(
      (o) => this.knowledge.watchIndexStatus({ collectionId: request.collectionId }, o),
      (reply) => reply.status ?? create(IndexStatusSchema),
      options,
    );
  }

  // ------------------------------------------------------------------ AdminService

  /** `mode` as enum value or name (`"HYBRID"`); omitted/0 leave a setting unchanged. */
  async setRetrievalPolicy(
    request: { mode?: ModeArg; maxSearchLimit?: number },
    options?: CallOptions,
  ): Promise<RetrievalPolicy> {
    const reply = await this.unary(
      (o) =>
        this.admin.setRetrievalPolicy(
          { mode: retrievalMode(request.mode), maxSearchLimit: request.maxSearchLimit ?? 0 },
          o,
        ),
      options,
    );
    return reply.policy ?? create(RetrievalPolicySchema);
  }

  async getRetrievalPolicy(options?: CallOptions): Promise<RetrievalPolicy> {
    const reply = await this.unary((o) => this.admin.getRetrievalPolicy({}, o), options);
    return reply.policy ?? create(RetrievalPolicySchema);
  }

  async setKillSwitch(request: { engaged: boolean }, options?: CallOptions): Promise<RetrievalPolicy> {
    const reply = await this.unary((o) => this.admin.setKillSwitch({ engaged: request.engaged }, o), options);
    return reply.policy ?? create(RetrievalPolicySchema);
  }

  /** Stores the namespace's planner overrides; returns the stored config. */
  async setNamespaceSearchConfig(
    request: { namespace: string; config: PageSearchConfigInit },
    options?: CallOptions,
  ): Promise<PageSearchConfig> {
    const reply = await this.unary(
      (o) => this.admin.setNamespaceSearchConfig({ namespace: request.namespace, config: request.config }, o),
      options,
    );
    return reply.config ?? create(PageSearchConfigSchema);
  }

  /** Builds a new generation beside the serving one; `embeddingModel` (a name of listModels)
   * embeds it with another model, which serves once it is READY (empty keeps the serving
   * generation's). */
  async rebuildIndex(
    request: { collectionId: string; indexVersion?: string; embeddingModel?: string },
    options?: CallOptions,
  ): Promise<IndexStatus> {
    const reply = await this.unary(
      (o) =>
        this.admin.rebuildIndex(
          {
            collectionId: request.collectionId,
            indexVersion: request.indexVersion ?? "",
            embeddingModel: request.embeddingModel ?? "",
          },
          o,
        ),
      options,
    );
    return reply.status ?? create(IndexStatusSchema);
  }

  async rollbackIndex(request: { collectionId: string }, options?: CallOptions): Promise<IndexStatus> {
    const reply = await this.unary((o) => this.admin.rollbackIndex({ collectionId: request.collectionId }, o), options);
    return reply.status ?? create(IndexStatusSchema);
  }

  /** Yields `GateProgress` messages and finally the `GateResult` (`isGateResult`). */
  runGate(
    request: { dataset: string; split: string; maxDocuments?: number; maxQueries?: number },
    options?: CallOptions,
  ): AsyncIterable<GateProgress | GateResult> {
    return this.serverStream(
      (o) =>
        this.admin.runGate(
          {
            dataset: request.dataset,
            split: request.split,
            maxDocuments: request.maxDocuments ?? 0,
            maxQueries: request.maxQueries ?? 0,
          },
          o,
        ),
      (reply): GateProgress | GateResult => {
        const m = reply.message;
        if (m.case === "result" || m.case === "progress") return m.value;
        throw new TypeError("RunGateResponse without a message");
      },
      options,
    );
  }

  /** `result` (unset when none for the fingerprint) and `currentFingerprint`. */
  async getGateStatus(options?: CallOptions): Promise<GetGateStatusResponse> {
    return this.unary((o) => this.admin.getGateStatus({}, o), options);
  }

  async getShadowReport(options?: CallOptions): Promise<ShadowReport> {
    const reply = await this.unary((o) => this.admin.getShadowReport({}, o), options);
    return reply.report ?? create(ShadowReportSchema);
  }

  /**
   * Scopes as names (`"read"`, `"write"`, `"admin"`, `"tune"`) or enum values; `name` labels the key in
   * `listApiKeys`. The secret is shown once.
   */
  async createApiKey(request: { scopes: Iterable<ScopeArg>; name?: string }, options?: CallOptions): Promise<ApiKey> {
    const reply = await this.unary(
      (o) => this.admin.createApiKey({ scopes: scopeValues(request.scopes), name: request.name ?? "" }, o),
      options,
    );
    return reply.key ?? create(ApiKeySchema);
  }

  async revokeApiKey(request: { keyId: string }, options?: CallOptions): Promise<void> {
    await this.unary((o) => this.admin.revokeApiKey({ keyId: request.keyId }, o), options);
  }

  /** The organisation's live keys, newest first (`keys`, `truncated`); never secrets. */
  async listApiKeys(options?: CallOptions): Promise<ListApiKeysResponse> {
    return this.unary((o) => this.admin.listApiKeys({}, o), options);
  }

  /** The caller's organisation, key (no secret), retrieval policy and limits. */
  async whoAmI(options?: CallOptions): Promise<WhoAmIResponse> {
    return this.unary((o) => this.admin.whoAmI({}, o), options);
  }
}
