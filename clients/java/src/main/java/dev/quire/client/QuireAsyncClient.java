package dev.quire.client;

import dev.quire.v1.*;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The asynchronous face of a {@link QuireClient} ({@code client.async()}): every unary call
 * returns a {@link CompletableFuture} of the result message (the response wrapper removed),
 * completed exceptionally with a {@link QuireException}. Cancelling the future cancels the
 * call. Deadlines and retries are the client's (see {@link QuireClient}).
 */
public final class QuireAsyncClient {
  final Calls calls;

  QuireAsyncClient(Calls calls) {
    this.calls = calls;
  }

  /** The consistency tokens, shared with the blocking client ({@link QuireClient#consistency()}). */
  public ConsistencyTokens consistency() {
    return calls.tokens;
  }

  // PagesService

  public CompletableFuture<SearchResult> searchPages(SearchPagesRequest request) {
    return calls.unary(PagesServiceGrpc.getSearchPagesMethod(), request).thenApply(SearchPagesResponse::getResult);
  }

  public CompletableFuture<PageRead> readPage(ReadPageRequest request) {
    return calls.unary(PagesServiceGrpc.getReadPageMethod(), request).thenApply(ReadPageResponse::getPageRead);
  }

  public CompletableFuture<PageList> listPages(ListPagesRequest request) {
    return calls.unary(PagesServiceGrpc.getListPagesMethod(), request).thenApply(ListPagesResponse::getPageList);
  }

  public CompletableFuture<GrepResult> grepPages(GrepPagesRequest request) {
    return calls.unary(PagesServiceGrpc.getGrepPagesMethod(), request).thenApply(GrepPagesResponse::getResult);
  }

  public CompletableFuture<CommandResult> runCommand(RunCommandRequest request) {
    return calls.unary(PagesServiceGrpc.getRunCommandMethod(), request).thenApply(RunCommandResponse::getResult);
  }

  public CompletableFuture<List<ToolDefinition>> describeTools(DescribeToolsRequest request) {
    return calls.unary(PagesServiceGrpc.getDescribeToolsMethod(), request).thenApply(DescribeToolsResponse::getToolsList);
  }

  public CompletableFuture<SyncReport> getSyncReport(String namespace) {
    var request = GetSyncReportRequest.newBuilder().setNamespace(namespace).build();
    return calls.unary(PagesServiceGrpc.getGetSyncReportMethod(), request).thenApply(GetSyncReportResponse::getReport);
  }

  public CompletableFuture<List<Namespace>> listNamespaces() {
    return calls.unary(PagesServiceGrpc.getListNamespacesMethod(), ListNamespacesRequest.getDefaultInstance())
        .thenApply(ListNamespacesResponse::getNamespacesList);
  }

  // KnowledgeService

  public CompletableFuture<Collection> createCollection(String name) {
    var request = CreateCollectionRequest.newBuilder().setName(name).build();
    return calls.unary(KnowledgeServiceGrpc.getCreateCollectionMethod(), request).thenApply(CreateCollectionResponse::getCollection);
  }

  /** A collection whose vectors come from {@code embeddingModel} (a name from listModels; "" for the default). */
  public CompletableFuture<Collection> createCollection(String name, String embeddingModel) {
    var request = CreateCollectionRequest.newBuilder().setName(name).setEmbeddingModel(embeddingModel).build();
    return calls.unary(KnowledgeServiceGrpc.getCreateCollectionMethod(), request).thenApply(CreateCollectionResponse::getCollection);
  }

  /** The embedding models the deployment knows: dimensions, prepared, loaded, default. */
  public CompletableFuture<List<EmbeddingModel>> listModels() {
    return calls.unary(KnowledgeServiceGrpc.getListModelsMethod(), ListModelsRequest.getDefaultInstance())
        .thenApply(ListModelsResponse::getModelsList);
  }

  public CompletableFuture<Collection> getCollection(String collectionId) {
    var request = GetCollectionRequest.newBuilder().setCollectionId(collectionId).build();
    return calls.unary(KnowledgeServiceGrpc.getGetCollectionMethod(), request).thenApply(GetCollectionResponse::getCollection);
  }

  public CompletableFuture<List<Collection>> listCollections() {
    return calls.unary(KnowledgeServiceGrpc.getListCollectionsMethod(), ListCollectionsRequest.getDefaultInstance())
        .thenApply(ListCollectionsResponse::getCollectionsList);
  }

  public CompletableFuture<Collection> deleteCollection(String collectionId) {
    var request = DeleteCollectionRequest.newBuilder().setCollectionId(collectionId).build();
    return calls.unary(KnowledgeServiceGrpc.getDeleteCollectionMethod(), request).thenApply(DeleteCollectionResponse::getCollection);
  }

  /** By document_id, or by collection_id + external_key. */
  public CompletableFuture<Document> getDocument(GetDocumentRequest request) {
    return calls.unary(KnowledgeServiceGrpc.getGetDocumentMethod(), request).thenApply(GetDocumentResponse::getDocument);
  }

  /** One page (documents, next_cursor), newest first; see {@link QuireClient#documents}. */
  public CompletableFuture<ListDocumentsResponse> listDocuments(ListDocumentsRequest request) {
    return calls.unary(KnowledgeServiceGrpc.getListDocumentsMethod(), request);
  }

  /** By document_id, or by collection_id + external_key. */
  public CompletableFuture<Document> deleteDocument(DeleteDocumentRequest request) {
    return calls.unary(KnowledgeServiceGrpc.getDeleteDocumentMethod(), request).thenApply(DeleteDocumentResponse::getDocument);
  }

  /** By external_keys, document_ids or a filter; one transaction. */
  public CompletableFuture<DeleteDocumentsResponse> deleteDocuments(DeleteDocumentsRequest request) {
    return calls.unary(KnowledgeServiceGrpc.getDeleteDocumentsMethod(), request);
  }

  /** A JSON merge patch of the document's metadata (or a replacement with replace=true). */
  public CompletableFuture<Document> updateDocumentMetadata(UpdateDocumentMetadataRequest request) {
    return calls.unary(KnowledgeServiceGrpc.getUpdateDocumentMetadataMethod(), request)
        .thenApply(UpdateDocumentMetadataResponse::getDocument);
  }

  public CompletableFuture<Agent> upsertAgent(UpsertAgentRequest request) {
    return calls.unary(KnowledgeServiceGrpc.getUpsertAgentMethod(), request).thenApply(UpsertAgentResponse::getAgent);
  }

  public CompletableFuture<Agent> getAgent(String agentId) {
    var request = GetAgentRequest.newBuilder().setAgentId(agentId).build();
    return calls.unary(KnowledgeServiceGrpc.getGetAgentMethod(), request).thenApply(GetAgentResponse::getAgent);
  }

  /** Deletes the agent (its collections stay); completes with the agent as it was. */
  public CompletableFuture<Agent> deleteAgent(String agentId) {
    var request = DeleteAgentRequest.newBuilder().setAgentId(agentId).build();
    return calls.unary(KnowledgeServiceGrpc.getDeleteAgentMethod(), request).thenApply(DeleteAgentResponse::getAgent);
  }

  /** One page of agents by agent_id; see {@link QuireClient#agents}. */
  public CompletableFuture<ListAgentsResponse> listAgents(ListAgentsRequest request) {
    return calls.unary(KnowledgeServiceGrpc.getListAgentsMethod(), request);
  }

  public CompletableFuture<SearchKnowledgeResponse> searchKnowledge(SearchKnowledgeRequest request) {
    return calls.unary(KnowledgeServiceGrpc.getSearchKnowledgeMethod(), request);
  }

  public CompletableFuture<DocumentSlice> readDocument(ReadDocumentRequest request) {
    return calls.unary(KnowledgeServiceGrpc.getReadDocumentMethod(), request).thenApply(ReadDocumentResponse::getSlice);
  }

  public CompletableFuture<IndexStatus> getIndexStatus(String collectionId) {
    var request = GetIndexStatusRequest.newBuilder().setCollectionId(collectionId).build();
    return calls.unary(KnowledgeServiceGrpc.getGetIndexStatusMethod(), request).thenApply(GetIndexStatusResponse::getStatus);
  }

  // AdminService (a key with scope admin)

  public CompletableFuture<RetrievalPolicy> setRetrievalPolicy(SetRetrievalPolicyRequest request) {
    return calls.unary(AdminServiceGrpc.getSetRetrievalPolicyMethod(), request).thenApply(SetRetrievalPolicyResponse::getPolicy);
  }

  public CompletableFuture<RetrievalPolicy> getRetrievalPolicy() {
    return calls.unary(AdminServiceGrpc.getGetRetrievalPolicyMethod(), GetRetrievalPolicyRequest.getDefaultInstance())
        .thenApply(GetRetrievalPolicyResponse::getPolicy);
  }

  public CompletableFuture<RetrievalPolicy> setKillSwitch(boolean engaged) {
    var request = SetKillSwitchRequest.newBuilder().setEngaged(engaged).build();
    return calls.unary(AdminServiceGrpc.getSetKillSwitchMethod(), request).thenApply(SetKillSwitchResponse::getPolicy);
  }

  public CompletableFuture<PageSearchConfig> setNamespaceSearchConfig(SetNamespaceSearchConfigRequest request) {
    return calls.unary(AdminServiceGrpc.getSetNamespaceSearchConfigMethod(), request)
        .thenApply(SetNamespaceSearchConfigResponse::getConfig);
  }

  public CompletableFuture<IndexStatus> rebuildIndex(RebuildIndexRequest request) {
    return calls.unary(AdminServiceGrpc.getRebuildIndexMethod(), request).thenApply(RebuildIndexResponse::getStatus);
  }

  public CompletableFuture<IndexStatus> rollbackIndex(String collectionId) {
    var request = RollbackIndexRequest.newBuilder().setCollectionId(collectionId).build();
    return calls.unary(AdminServiceGrpc.getRollbackIndexMethod(), request).thenApply(RollbackIndexResponse::getStatus);
  }

  public CompletableFuture<GetGateStatusResponse> getGateStatus() {
    return calls.unary(AdminServiceGrpc.getGetGateStatusMethod(), GetGateStatusRequest.getDefaultInstance());
  }

  public CompletableFuture<ShadowReport> getShadowReport() {
    return calls.unary(AdminServiceGrpc.getGetShadowReportMethod(), GetShadowReportRequest.getDefaultInstance())
        .thenApply(GetShadowReportResponse::getReport);
  }

  /** A new key of the caller's organisation; its secret is shown only here. */
  public CompletableFuture<ApiKey> createApiKey(List<Scope> scopes) {
    var request = CreateApiKeyRequest.newBuilder().addAllScopes(scopes).build();
    return calls.unary(AdminServiceGrpc.getCreateApiKeyMethod(), request).thenApply(CreateApiKeyResponse::getKey);
  }

  /** A new key with a name that labels it in {@link #listApiKeys}; its secret is shown only here. */
  public CompletableFuture<ApiKey> createApiKey(String name, List<Scope> scopes) {
    var request = CreateApiKeyRequest.newBuilder().setName(name).addAllScopes(scopes).build();
    return calls.unary(AdminServiceGrpc.getCreateApiKeyMethod(), request).thenApply(CreateApiKeyResponse::getKey);
  }

  public CompletableFuture<Void> revokeApiKey(String keyId) {
    var request = RevokeApiKeyRequest.newBuilder().setKeyId(keyId).build();
    return calls.unary(AdminServiceGrpc.getRevokeApiKeyMethod(), request).thenApply(r -> null);
  }

  /** The organisation's live keys, newest first (keys, truncated); never their secrets. */
  public CompletableFuture<ListApiKeysResponse> listApiKeys() {
    return calls.unary(AdminServiceGrpc.getListApiKeysMethod(), ListApiKeysRequest.getDefaultInstance());
  }

  /** The caller's organisation, key (no secret), retrieval policy and limits. */
  public CompletableFuture<WhoAmIResponse> whoAmI() {
    return calls.unary(AdminServiceGrpc.getWhoAmIMethod(), WhoAmIRequest.getDefaultInstance());
  }

  // Streams

  /**
   * Runs a sync without blocking a thread: {@code progress} (may be null) sees every message
   * before the report, on gRPC's threads; {@code validator} (null: no check) accepts or aborts
   * after discovery. The future completes with the report; cancelling it cancels the sync.
   */
  public CompletableFuture<SyncReport> syncPages(
      SyncStart start, Predicate<DiscoveryCheck> validator, Consumer<SyncPagesResponse> progress) {
    SyncStart first = validator == null ? start : start.toBuilder().setValidateDiscovery(true).build();
    ClientCall<SyncPagesRequest, SyncPagesResponse> call = calls.newCall(PagesServiceGrpc.getSyncPagesMethod());
    CompletableFuture<SyncReport> result = new CompletableFuture<>();
    call.start(new ClientCall.Listener<>() {
      private SyncReport report;

      @Override
      public void onMessage(SyncPagesResponse message) {
        if (message.hasDiscoveryCheck()) {
          boolean accept = validator == null || validator.test(message.getDiscoveryCheck());
          call.sendMessage(SyncPagesRequest.newBuilder()
              .setDecision(DiscoveryDecision.newBuilder().setAccept(accept)).build());
        }
        if (message.hasReport()) {
          report = message.getReport();
        } else if (progress != null) {
          progress.accept(message);
        }
        call.request(1);
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        if (!status.isOk()) {
          result.completeExceptionally(QuireException.fromStatus(status, trailers, status.asRuntimeException(trailers)));
        } else if (report == null) {
          result.completeExceptionally(QuireErrors.of(ErrorCode.ERROR_CODE_SYNC_FAILED, Status.Code.UNKNOWN,
              "the sync ended without a report", null, null));
        } else {
          result.complete(report);
        }
      }
    }, new Metadata());
    call.request(1);
    // The request side stays open until the server ends the call.
    call.sendMessage(SyncPagesRequest.newBuilder().setStart(first).build());
    result.whenComplete((r, e) -> {
      if (result.isCancelled()) {
        call.cancel("cancelled by the caller", null);
      }
    });
    return result;
  }

  /** Uploads a document: metadata, then the bytes in 1 MiB messages. Never retried. */
  public CompletableFuture<Document> uploadDocument(UploadMetadata metadata, byte[] data) {
    return calls.clientStream(KnowledgeServiceGrpc.getUploadDocumentMethod(), Uploads.single(metadata, data))
        .thenApply(UploadDocumentResponse::getDocument);
  }

  /** UploadDocument from a stream, read as the connection takes it; the whole response. */
  CompletableFuture<UploadDocumentResponse> uploadStream(UploadMetadata metadata, java.io.InputStream data) {
    return calls.clientStream(KnowledgeServiceGrpc.getUploadDocumentMethod(), Uploads.single(metadata, data));
  }

  /** One UploadDocuments call over these documents (at most 1,000; see QuireClient#uploadDocuments). */
  public CompletableFuture<UploadDocumentsResponse> uploadBatch(List<UploadItem> items, String collectionId) {
    return calls.clientStream(KnowledgeServiceGrpc.getUploadDocumentsMethod(), Uploads.batch(items, collectionId));
  }
}
