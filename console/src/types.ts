// The JSON shapes the console reads (proto3 JSON: lowerCamelCase, 64-bit integers as
// strings, enums by name, zero values omitted — hence every field optional).

export interface Collection {
  collectionId: string;
  name?: string;
  revision?: string;
  documentCount?: number;
  servingGeneration?: string;
  embeddingModel?: string;
}

/** An embedding model the server knows (KnowledgeService/ListModels). */
export interface EmbeddingModel {
  name: string;
  dimensions?: number;
  prepared?: boolean;
  loaded?: boolean;
  isDefault?: boolean;
  summary?: string;
}

export type DocumentStatus =
  | "DOCUMENT_STATUS_PENDING"
  | "DOCUMENT_STATUS_PROCESSING"
  | "DOCUMENT_STATUS_READY"
  | "DOCUMENT_STATUS_FAILED"
  | "DOCUMENT_STATUS_DELETED";

export interface Document {
  documentId: string;
  collectionId?: string;
  fileName?: string;
  mimeType?: string;
  sizeBytes?: string;
  status?: DocumentStatus;
  extractError?: string;
  attempts?: number;
  textLength?: string;
  updatedAt?: string;
}

export interface DocumentSlice {
  documentId?: string;
  fileName?: string;
  text?: string;
  offset?: string;
  nextOffset?: string;
  totalLength?: string;
  truncated?: boolean;
}

export interface KnowledgeHit {
  documentId?: string;
  collectionId?: string;
  fileName?: string;
  score?: number;
  snippet?: string;
  chunkId?: string;
  chunkOrdinal?: number;
  headingPath?: string[];
  indexGeneration?: string;
  rank?: number;
  indexState?: string;
}

export interface SearchKnowledgeResponse {
  hits?: KnowledgeHit[];
  mode?: string;
  cached?: boolean;
}

export interface IndexGeneration {
  generation?: string;
  state?: string;
  fingerprint?: string;
  indexVersion?: string;
  documentsIndexed?: number;
  documentsTotal?: number;
  createdAt?: string;
  readyAt?: string;
  error?: string;
  embeddingModel?: string;
  textAnalysis?: string;
}

export interface IndexStatus {
  collectionId?: string;
  servingGeneration?: string;
  buildingGeneration?: string;
  generations?: IndexGeneration[];
  workerLastSeen?: string;
  embeddingModel?: string;
}

export interface RetrievalPolicy {
  mode?: string;
  effectiveMode?: string;
  maxSearchLimit?: number;
  killSwitchEngaged?: boolean;
}

export interface ModeMetrics {
  mode?: string;
  label?: string;
  ndcgAt10?: number;
  recallAt10?: number;
  recallAt100?: number;
  mrrAt10?: number;
}

export interface GateResult {
  fingerprint?: string;
  dataset?: string;
  split?: string;
  metrics?: ModeMetrics[];
  passed?: boolean;
  measuredAt?: string;
  queries?: number;
  documents?: number;
}

export interface ShadowReport {
  samples?: string;
  meanOverlapAtK?: number;
  top1Agreement?: number;
  legacyP50Ms?: number;
  legacyP95Ms?: number;
  hybridP50Ms?: number;
  hybridP95Ms?: number;
  shadowFailures?: string;
  since?: string;
}

export interface Namespace {
  name?: string;
  pageCount?: number;
  filesystemVersion?: string;
  sourceUrl?: string;
  updatedAt?: string;
  embeddingModel?: string;
}

export interface SyncReport {
  namespace?: string;
  status?: string;
  discovered?: number;
  updated?: number;
  deleted?: number;
  failed?: number;
  unknown?: number;
  errors?: string[];
  failedPaths?: string[];
  embeddedChunks?: number;
  startedAt?: string;
  finishedAt?: string;
  metadataOnly?: number;
  cancelled?: boolean;
  embeddingModel?: string;
}

export interface SearchHit {
  path?: string;
  url?: string;
  title?: string;
  content?: string;
  score?: number;
  rank?: number;
  headingPath?: string[];
}

export interface PageRead {
  page?: { path?: string; title?: string; url?: string };
  content?: string;
  offset?: string;
  nextOffset?: string;
  totalChars?: string;
  truncated?: boolean;
}

export interface ApiKey {
  keyId?: string;
  name?: string;
  scopes?: string[];
  createdAt?: string;
  lastUsedAt?: string;
}

export interface WhoAmIResponse {
  organisation?: string;
  key?: ApiKey;
  policy?: RetrievalPolicy;
  maxConcurrentCalls?: number;
}
