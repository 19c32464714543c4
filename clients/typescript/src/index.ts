/**
 * `@quire/client`: the TypeScript client of Quire.
 *
 *     import { QuireClient, errors, toToolError } from "@quire/client";
 *
 *     const client = new QuireClient({ baseUrl: "http://127.0.0.1:50051", apiKey: "qk_..." });
 *     const collections = await client.listCollections();
 *
 * Every failure throws the `QuireError` subclass of its `quire.v1.ErrorCode` (`errors.X`);
 * `toToolError(err)` turns any thrown value into the agent tool JSON, `toToolResult(result)` any
 * result (64-bit fields as strings, so no `bigint` reaches `JSON.stringify`); `ToolRunner` runs a
 * model's tool calls (docs/agents.md). The generated messages,
 * enums and service descriptors of quire.v1 are re-exported.
 */
export {
  API_KEY_ENV,
  authInterceptor,
  type CallOptions,
  DEFAULT_BASE_URL,
  type DiscoveryValidator,
  type DocumentRef,
  type FolderUploadResult,
  type HeadersInit,
  isGateResult,
  isSyncReport,
  type ModeArg,
  normaliseBaseUrl,
  type PageSearchConfigInit,
  QuireClient,
  type QuireClientOptions,
  retrievalMode,
  type ScopeArg,
  scopeValues,
  type SyncOptions,
  type SyncStartOptions,
  type UploadDocumentsOptions,
  type UploadFolderOptions,
  type UploadMetadataOptions,
  USER_AGENT,
} from "./client.js";
export { CONSISTENCY_TOKEN_HEADER, ConsistencyTokens, tokenPosition, withConsistency } from "./consistency.js";
export {
  CODE_BY_GRPC_STATUS,
  codeName,
  ERROR_CLASSES,
  type ErrorClassName,
  errorClass,
  errorDetail,
  errorDetailOf,
  errors,
  fromConnectError,
  GRPC_STATUS_BY_CODE,
  grpcStatusName,
  isQuireError,
  QuireError,
  type QuireErrorClass,
  type QuireErrorOptions,
  type ToolError,
  toolErrorObject,
  toQuireError,
  toToolError,
  toToolErrorObject,
} from "./errors.js";
export {
  backoffDelayMs,
  type CallKind,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUTS,
  isIdempotent,
  isRetryable,
  resolveTimeoutMs,
  type RetryPolicy,
  RPC_KINDS,
  type Timeouts,
} from "./policy.js";
export {
  DEFAULT_BASE_URLS,
  type OpenedTransport,
  openTransport,
  type TransportOptions,
  type WireProtocol,
} from "./transport.js";
export {
  CONTRACT_REGISTRY,
  toToolResult,
  toToolResultObject,
  type ToolResultSource,
} from "./tool_result.js";
export {
  type BatchLimits,
  DEFAULT_MAX_BATCH_BYTES,
  MAX_BATCH_DOCUMENTS,
  splitBatches,
  type UploadItem,
} from "./batches.js";
export { filter, type FilterScalar, type Instant, type NumberBounds, type TimeBounds } from "./filters.js";
export { LARGE_FILE_BYTES } from "./folder.js";
export {
  DEFAULT_WAIT_MS,
  type DocumentOutcome,
  type SearchableOutcome,
  type SearchableResult,
  settledOutcome,
  type WaitOptions,
  type WaitTarget,
} from "./waiting.js";
export { CHUNK_SIZE, rechunk, uploadChunks, type UploadSource } from "./uploads.js";
export {
  argumentError,
  checkedArguments,
  type ToolArguments,
  type ToolClient,
  type ToolContract,
  type ToolName,
  type ToolOutcome,
  ToolRunner,
  type ToolRunnerOptions,
  TOOLS,
  type ToolShape,
} from "./tools.js";

export * from "./gen/quire/v1/admin_pb.js";
export * from "./gen/quire/v1/admin_service_pb.js";
export * from "./gen/quire/v1/errors_pb.js";
export * from "./gen/quire/v1/knowledge_pb.js";
export * from "./gen/quire/v1/knowledge_service_pb.js";
export * from "./gen/quire/v1/pages_pb.js";
export * from "./gen/quire/v1/pages_service_pb.js";
export * from "./gen/quire/v1/search_config_pb.js";
