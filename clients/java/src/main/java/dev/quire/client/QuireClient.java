package dev.quire.client;

import dev.quire.v1.*;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.ClientInterceptors;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.MetadataUtils;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The Java client of Quire, blocking: every method returns the result message of quire.v1 with
 * the response wrapper removed and throws a {@link QuireException} (a subclass per ErrorCode, in
 * {@link QuireErrors}). {@link #async()} gives the same calls as CompletableFutures.
 *
 * <pre>{@code
 * try (var client = QuireClient.builder("127.0.0.1:50051").plaintext().apiKey(key).build()) {
 *   SearchResult result = client.searchPages(
 *       SearchPagesRequest.newBuilder().setNamespace("docs").setQuery("revision").build());
 * }
 * }</pre>
 *
 * Each call gets its kind's default deadline (reads 10 s, searches 15 s, writes 30 s, sync 30
 * min, upload 10 min, gate 2 h, watches none; {@link #withTimeout} sets one for every call).
 * Idempotent unary reads are retried on UNAVAILABLE with exponential backoff and full jitter
 * within that deadline. Reads carry the highest consistency token seen, so against read replicas
 * they see this client's writes ({@link #consistency()}). Safe for concurrent use; close it when
 * done.
 */
public final class QuireClient implements AutoCloseable {
  /** The environment variable read when the builder is given no key. */
  public static final String API_KEY_ENV = "QUIRE_API_KEY";
  /** Sent as the gRPC user agent. */
  public static final String USER_AGENT = "quire-client-java/0.1.0";
  private static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
  private static final long DEFAULT_MAX_BATCH_BYTES = 64L * 1024 * 1024;

  private final ManagedChannel owned; // null when the caller's channel is used
  private final boolean root; // false for a withTimeout view, which closes nothing
  private final ScheduledExecutorService scheduler;
  private final Calls calls;
  private final QuireAsyncClient async;

  private QuireClient(
      ManagedChannel owned, boolean root, ScheduledExecutorService scheduler, Calls calls) {
    this.owned = owned;
    this.root = root;
    this.scheduler = scheduler;
    this.calls = calls;
    this.async = new QuireAsyncClient(calls);
  }

  public static Builder builder(String target) {
    return new Builder(target, null);
  }

  /** A client over a channel the caller owns (and closes); TLS settings do not apply. */
  public static Builder builder(Channel channel) {
    return new Builder(null, channel);
  }

  /** The same calls as CompletableFutures. */
  public QuireAsyncClient async() {
    return async;
  }

  /** A view of this client whose every call has this deadline (from its start) instead. */
  public QuireClient withTimeout(Duration timeout) {
    return new QuireClient(null, false, scheduler, calls.withTimeout(timeout));
  }

  /** The consistency tokens this client keeps and sends with reads (see {@link ConsistencyTokens}). */
  public ConsistencyTokens consistency() {
    return calls.tokens;
  }

  /** The channel every call goes through (the key is attached to each call). */
  public Channel channel() {
    return calls.channel;
  }

  /** Closes the channel the builder made (not a caller's); calls in flight fail. */
  @Override
  public void close() {
    if (root) {
      scheduler.shutdownNow();
    }
    if (owned != null) {
      owned.shutdownNow();
      try {
        owned.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw QuireException.fromStatus(io.grpc.Status.CANCELLED.withDescription("interrupted"), null, e);
    } catch (ExecutionException e) {
      QuireException qe = QuireException.from(e);
      if (qe != null) {
        throw qe;
      }
      if (e.getCause() instanceof RuntimeException) {
        throw (RuntimeException) e.getCause();
      }
      throw new CompletionException(e.getCause());
    }
  }

  // PagesService

  /**
   * Synchronises a site into a namespace. The stream yields every server message: progress,
   * the DiscoveryCheck (already answered: {@code validator} true accepts, false aborts and the
   * stream then fails with QuireErrors.DiscoveryRejected) and finally exactly one report. A
   * null validator asks for no check. Closing the stream cancels the sync (a cooperative stop).
   */
  public CallStream<SyncPagesResponse> syncPages(SyncStart start, Predicate<DiscoveryCheck> validator) {
    SyncStart first = validator == null ? start : start.toBuilder().setValidateDiscovery(true).build();
    CallStream<SyncPagesResponse> stream =
        calls.stream(
            PagesServiceGrpc.getSyncPagesMethod(),
            (s, message) -> {
              if (message.hasDiscoveryCheck()) {
                boolean accept = validator == null || validator.test(message.getDiscoveryCheck());
                s.send(SyncPagesRequest.newBuilder()
                    .setDecision(DiscoveryDecision.newBuilder().setAccept(accept))
                    .build());
              }
            });
    // The request side stays open until the server ends the call.
    stream.send(SyncPagesRequest.newBuilder().setStart(first).build());
    return stream;
  }

  /** Runs a sync to its end: {@code progress} (may be null) sees every message before the report. */
  public SyncReport syncPagesReport(
      SyncStart start, Predicate<DiscoveryCheck> validator, Consumer<SyncPagesResponse> progress) {
    try (CallStream<SyncPagesResponse> stream = syncPages(start, validator)) {
      for (SyncPagesResponse message : stream) {
        if (message.hasReport()) {
          return message.getReport();
        }
        if (progress != null) {
          progress.accept(message);
        }
      }
    }
    throw QuireErrors.of(ErrorCode.ERROR_CODE_SYNC_FAILED, io.grpc.Status.Code.UNKNOWN,
        "the sync ended without a report", null, null);
  }

  public SearchResult searchPages(SearchPagesRequest request) {
    return await(async.searchPages(request));
  }

  /** A stale pinned revision throws QuireErrors.PageChanged with currentRevision(). */
  public PageRead readPage(ReadPageRequest request) {
    return await(async.readPage(request));
  }

  public PageList listPages(ListPagesRequest request) {
    return await(async.listPages(request));
  }

  public GrepResult grepPages(GrepPagesRequest request) {
    return await(async.grepPages(request));
  }

  public CommandResult runCommand(RunCommandRequest request) {
    return await(async.runCommand(request));
  }

  public List<ToolDefinition> describeTools(DescribeToolsRequest request) {
    return await(async.describeTools(request));
  }

  public SyncReport getSyncReport(String namespace) {
    return await(async.getSyncReport(namespace));
  }

  public List<Namespace> listNamespaces() {
    return await(async.listNamespaces());
  }

  // KnowledgeService

  public Collection createCollection(String name) {
    return await(async.createCollection(name));
  }

  public Collection createCollection(String name, String embeddingModel) {
    return await(async.createCollection(name, embeddingModel));
  }

  public List<EmbeddingModel> listModels() {
    return await(async.listModels());
  }

  public Collection getCollection(String collectionId) {
    return await(async.getCollection(collectionId));
  }

  public List<Collection> listCollections() {
    return await(async.listCollections());
  }

  public Collection deleteCollection(String collectionId) {
    return await(async.deleteCollection(collectionId));
  }

  /**
   * Streams a document: the metadata message, then {@code data} read in 1 MiB messages. A
   * document_id (or an external_key a document holds) replaces that document. Never retried.
   */
  public Document uploadDocument(UploadMetadata metadata, InputStream data) {
    // A read error of `data` cancels the call and is thrown as the UncheckedIOException it is.
    return await(async.uploadStream(metadata, data)).getDocument();
  }

  public Document uploadDocument(UploadMetadata metadata, byte[] data) {
    return await(async.uploadDocument(metadata, data));
  }

  /**
   * Uploads many documents over UploadDocuments, cut into calls of at most 1,000 documents and
   * 64 MiB; the results of every call in input order, {@code index} = position in {@code items}.
   * A refused document has its error in its result; the others are stored.
   */
  public UploadDocumentsResponse uploadDocuments(String collectionId, List<UploadItem> items) {
    return uploadDocuments(collectionId, items, DEFAULT_MAX_BATCH_BYTES);
  }

  public UploadDocumentsResponse uploadDocuments(String collectionId, List<UploadItem> items, long maxBatchBytes) {
    var out = UploadDocumentsResponse.newBuilder();
    int offset = 0;
    for (List<UploadItem> batch : Uploads.batches(items, maxBatchBytes)) {
      UploadDocumentsResponse reply = await(async.uploadBatch(batch, collectionId));
      out.setSchemaVersion(reply.getSchemaVersion());
      for (UploadResult result : reply.getResultsList()) {
        out.addResults(result.toBuilder().setIndex(result.getIndex() + offset));
      }
      offset += batch.size();
    }
    return out.build();
  }

  /**
   * Uploads every file under {@code folder}, keyed by its relative path ("guide/intro.md"), so
   * a second run is a no-op for unchanged files (outcome UNCHANGED). Small files are batched,
   * files over 1 MiB streamed one by one, {@code concurrency} calls at once; {@code metadata}
   * (may be null, or return null) gives a file's metadata. One result per file, in path order;
   * a refused or unreadable file is its result's error, never a thrown exception.
   */
  public List<FolderUpload.FileResult> uploadFolder(
      String collectionId, java.nio.file.Path folder, int concurrency,
      java.util.function.Function<java.nio.file.Path, com.google.protobuf.Struct> metadata) {
    return new FolderUpload(this).upload(collectionId, folder, concurrency, metadata);
  }

  public Document getDocument(String documentId) {
    return await(async.getDocument(GetDocumentRequest.newBuilder().setDocumentId(documentId).build()));
  }

  public Document getDocument(String collectionId, String externalKey) {
    return await(async.getDocument(GetDocumentRequest.newBuilder()
        .setCollectionId(collectionId).setExternalKey(externalKey).build()));
  }

  public ListDocumentsResponse listDocuments(ListDocumentsRequest request) {
    return await(async.listDocuments(request));
  }

  public Document deleteDocument(String documentId) {
    return await(async.deleteDocument(DeleteDocumentRequest.newBuilder().setDocumentId(documentId).build()));
  }

  public Document deleteDocument(String collectionId, String externalKey) {
    return await(async.deleteDocument(DeleteDocumentRequest.newBuilder()
        .setCollectionId(collectionId).setExternalKey(externalKey).build()));
  }

  public DeleteDocumentsResponse deleteDocuments(DeleteDocumentsRequest request) {
    return await(async.deleteDocuments(request));
  }

  public Document updateDocumentMetadata(UpdateDocumentMetadataRequest request) {
    return await(async.updateDocumentMetadata(request));
  }

  /** A Document at each status or index-state change; no default deadline (close to stop). */
  public CallStream<Document> watchDocuments(WatchDocumentsRequest request) {
    // Each message's token is the primary's position once its state was read: a search after
    // a document was seen indexed then reads a node that has replayed the indexing.
    return calls.serverStream(KnowledgeServiceGrpc.getWatchDocumentsMethod(), request)
        .map(message -> {
          calls.tokens.observeToken(message.getConsistencyToken());
          return message.getDocument();
        });
  }

  public Agent upsertAgent(UpsertAgentRequest request) {
    return await(async.upsertAgent(request));
  }

  public Agent getAgent(String agentId) {
    return await(async.getAgent(agentId));
  }

  public Agent deleteAgent(String agentId) {
    return await(async.deleteAgent(agentId));
  }

  public ListAgentsResponse listAgents(ListAgentsRequest request) {
    return await(async.listAgents(request));
  }

  public SearchKnowledgeResponse searchKnowledge(SearchKnowledgeRequest request) {
    return await(async.searchKnowledge(request));
  }

  public DocumentSlice readDocument(ReadDocumentRequest request) {
    return await(async.readDocument(request));
  }

  public IndexStatus getIndexStatus(String collectionId) {
    return await(async.getIndexStatus(collectionId));
  }

  /** IndexStatus at every generation change; no default deadline (close to stop). */
  public CallStream<IndexStatus> watchIndexStatus(String collectionId) {
    var request = WatchIndexStatusRequest.newBuilder().setCollectionId(collectionId).build();
    return calls.serverStream(KnowledgeServiceGrpc.getWatchIndexStatusMethod(), request)
        .map(WatchIndexStatusResponse::getStatus);
  }

  /**
   * Waits until documents are searchable (or failed, or have no text, or are gone), at most
   * {@code timeout}; never throws for the timeout (outcomes say TIMED_OUT). Built on
   * WatchDocuments, one watch per collection, reconnected when the connection drops.
   */
  public Searchable.Result waitUntilSearchable(List<String> documentIds, Duration timeout) {
    return new Searchable(this).byIds(documentIds, timeout);
  }

  /** {@link #waitUntilSearchable(List, Duration)} for every live document of a collection. */
  public Searchable.Result waitUntilSearchable(String collectionId, Duration timeout) {
    return new Searchable(this).byCollection(collectionId, timeout);
  }

  // Iterators over the list calls: the paged ones follow next_cursor lazily.

  public Iterable<Collection> collections() {
    return listCollections();
  }

  public Iterable<Namespace> namespaces() {
    return listNamespaces();
  }

  /** Every document of request's collection (and filter); pageSize 0 = the server's default. */
  public Iterable<Document> documents(ListDocumentsRequest request, int pageSize) {
    return Pages.paged(cursor -> {
      var page = listDocuments(request.toBuilder().setCursor(cursor).setLimit(pageSize).build());
      return new Pages.Page<>(page.getDocumentsList(), page.getNextCursor());
    });
  }

  public Iterable<Agent> agents(ListAgentsRequest request, int pageSize) {
    return Pages.paged(cursor -> {
      var page = listAgents(request.toBuilder().setCursor(cursor).setLimit(pageSize).build());
      return new Pages.Page<>(page.getAgentsList(), page.getNextCursor());
    });
  }

  /** Every page of a namespace under request's prefix. */
  public Iterable<Page> pages(ListPagesRequest request, int pageSize) {
    return Pages.paged(cursor -> {
      var page = listPages(request.toBuilder().setCursor(cursor).setLimit(pageSize).build());
      return new Pages.Page<>(page.getPagesList(), page.getNextCursor());
    });
  }

  // AdminService (a key with scope admin)

  public RetrievalPolicy setRetrievalPolicy(SetRetrievalPolicyRequest request) {
    return await(async.setRetrievalPolicy(request));
  }

  public RetrievalPolicy getRetrievalPolicy() {
    return await(async.getRetrievalPolicy());
  }

  public RetrievalPolicy setKillSwitch(boolean engaged) {
    return await(async.setKillSwitch(engaged));
  }

  public PageSearchConfig setNamespaceSearchConfig(SetNamespaceSearchConfigRequest request) {
    return await(async.setNamespaceSearchConfig(request));
  }

  /**
   * Builds a new generation beside the serving one; with {@code embedding_model}, embedded with
   * that model (empty keeps the serving generation's).
   */
  public IndexStatus rebuildIndex(RebuildIndexRequest request) {
    return await(async.rebuildIndex(request));
  }

  public IndexStatus rollbackIndex(String collectionId) {
    return await(async.rollbackIndex(collectionId));
  }

  /** Gate progress messages, then the result; default deadline 2 h. */
  public CallStream<RunGateResponse> runGate(RunGateRequest request) {
    return calls.serverStream(AdminServiceGrpc.getRunGateMethod(), request);
  }

  public GetGateStatusResponse getGateStatus() {
    return await(async.getGateStatus());
  }

  public ShadowReport getShadowReport() {
    return await(async.getShadowReport());
  }

  public ApiKey createApiKey(List<Scope> scopes) {
    return await(async.createApiKey(scopes));
  }

  public ApiKey createApiKey(String name, List<Scope> scopes) {
    return await(async.createApiKey(name, scopes));
  }

  public void revokeApiKey(String keyId) {
    await(async.revokeApiKey(keyId));
  }

  public ListApiKeysResponse listApiKeys() {
    return await(async.listApiKeys());
  }

  public WhoAmIResponse whoAmI() {
    return await(async.whoAmI());
  }

  /** Builds a client: TLS with the system roots unless told otherwise. */
  public static final class Builder {
    private final String target;
    private final Channel channel;
    private String apiKey = System.getenv(API_KEY_ENV);
    private boolean plaintext;
    private File trustCertificates;
    private File clientCertificate;
    private File clientKey;
    private final Map<Contract.CallKind, Duration> timeouts = new EnumMap<>(Contract.CallKind.class);
    private RetryPolicy retry = RetryPolicy.defaults();
    private boolean sessionConsistency = true;

    private Builder(String target, Channel channel) {
      this.target = target;
      this.channel = channel;
    }

    /** Sends {@code authorization: Bearer <key>} on every call; null or "" sends none. */
    public Builder apiKey(String key) {
      this.apiKey = key;
      return this;
    }

    /** No TLS (a local {@code quire up} on 127.0.0.1:50051, tests). */
    public Builder plaintext() {
      this.plaintext = true;
      return this;
    }

    /** TLS trusting these PEM roots instead of the system's. */
    public Builder trustCertificates(File rootsPem) {
      this.trustCertificates = rootsPem;
      return this;
    }

    /** Mutual TLS: this client certificate chain and private key (PEM). */
    public Builder clientCertificate(File certificatePem, File privateKeyPem) {
      this.clientCertificate = certificatePem;
      this.clientKey = privateKeyPem;
      return this;
    }

    /** The default deadline of one call kind (null: none). The caller's withTimeout wins. */
    public Builder defaultTimeout(Contract.CallKind kind, Duration timeout) {
      timeouts.put(kind, timeout);
      return this;
    }

    public Builder retry(RetryPolicy policy) {
      this.retry = policy;
      return this;
    }

    /**
     * Session consistency with read replicas (default on): reads carry the highest consistency
     * token seen, so they see this client's writes. Off: reads may lag a little behind them.
     */
    public Builder sessionConsistency(boolean enabled) {
      this.sessionConsistency = enabled;
      return this;
    }

    private ChannelCredentials credentials() throws IOException {
      if (plaintext) {
        return InsecureChannelCredentials.create();
      }
      var tls = TlsChannelCredentials.newBuilder();
      if (trustCertificates != null) {
        tls.trustManager(trustCertificates);
      }
      if (clientCertificate != null) {
        tls.keyManager(clientCertificate, clientKey);
      }
      return tls.build();
    }

    public QuireClient build() {
      ManagedChannel made = null;
      Channel base = channel;
      if (base == null) {
        try {
          made = Grpc.newChannelBuilder(target, credentials())
              .userAgent(USER_AGENT)
              .maxInboundMessageSize(MAX_MESSAGE_BYTES)
              .build();
        } catch (IOException e) {
          throw new UncheckedIOException("reading the TLS files", e);
        }
        base = made;
      }
      ConsistencyTokens tokens = new ConsistencyTokens(sessionConsistency);
      base = ClientInterceptors.intercept(base, tokens.interceptor());
      if (apiKey != null && !apiKey.isEmpty()) {
        Metadata headers = new Metadata();
        headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + apiKey);
        base = ClientInterceptors.intercept(base, MetadataUtils.newAttachHeadersInterceptor(headers));
      }
      ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "quire-retry");
        t.setDaemon(true);
        return t;
      });
      Map<Contract.CallKind, Duration> kinds = new EnumMap<>(Contract.CallKind.class);
      for (Contract.CallKind kind : Contract.CallKind.values()) {
        kinds.put(kind, timeouts.containsKey(kind) ? timeouts.get(kind) : kind.defaultDeadline());
      }
      return new QuireClient(made, true, scheduler, new Calls(base, kinds, retry, scheduler, null, tokens));
    }
  }

  static <T> List<T> listOf(Iterable<T> items) {
    List<T> out = new ArrayList<>();
    items.forEach(out::add);
    return out;
  }
}
