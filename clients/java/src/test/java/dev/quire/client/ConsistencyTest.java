package dev.quire.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quire.v1.Collection;
import dev.quire.v1.CreateCollectionRequest;
import dev.quire.v1.CreateCollectionResponse;
import dev.quire.v1.Document;
import dev.quire.v1.GetCollectionRequest;
import dev.quire.v1.GetCollectionResponse;
import dev.quire.v1.KnowledgeServiceGrpc;
import dev.quire.v1.WatchDocumentsRequest;
import dev.quire.v1.WatchDocumentsResponse;
import io.grpc.ForwardingServerCall;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Session consistency over a real loopback server that answers with a set trailer token (as a
 * server with read replicas does) and records the token each call was sent with.
 */
class ConsistencyTest {
  private static final String NONE = "(none)";
  private final Map<String, String> received = new ConcurrentHashMap<>(); // rpc -> last token sent
  private volatile String trailerToken; // null: the server sends none
  private volatile String watchToken = "";
  private Server server;
  private QuireClient client;

  @BeforeEach
  void start() throws Exception {
    var service = new KnowledgeServiceGrpc.KnowledgeServiceImplBase() {
      @Override
      public void getCollection(GetCollectionRequest request, StreamObserver<GetCollectionResponse> observer) {
        observer.onNext(GetCollectionResponse.newBuilder()
            .setCollection(Collection.newBuilder().setCollectionId(request.getCollectionId())).build());
        observer.onCompleted();
      }

      @Override
      public void createCollection(CreateCollectionRequest request, StreamObserver<CreateCollectionResponse> observer) {
        observer.onNext(CreateCollectionResponse.newBuilder()
            .setCollection(Collection.newBuilder().setCollectionId("c1")).build());
        observer.onCompleted();
      }

      @Override
      public void watchDocuments(WatchDocumentsRequest request, StreamObserver<WatchDocumentsResponse> observer) {
        observer.onNext(WatchDocumentsResponse.newBuilder().setConsistencyToken(watchToken)
            .setDocument(Document.newBuilder().setDocumentId("d1")).build());
        observer.onCompleted();
      }
    };
    ServerInterceptor tokens = new ServerInterceptor() {
      @Override
      public <Req, Resp> ServerCall.Listener<Req> interceptCall(
          ServerCall<Req, Resp> call, Metadata headers, ServerCallHandler<Req, Resp> next) {
        String sent = headers.get(ConsistencyTokens.KEY);
        received.put(call.getMethodDescriptor().getBareMethodName(), sent == null ? NONE : sent);
        return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
          @Override
          public void close(Status status, Metadata trailers) {
            String token = trailerToken;
            if (token != null) {
              trailers.put(ConsistencyTokens.KEY, token);
            }
            super.close(status, trailers);
          }
        }, headers);
      }
    };
    server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
        .addService(ServerInterceptors.intercept(service, tokens))
        .build()
        .start();
    client = connect(true);
  }

  private QuireClient connect(boolean sessionConsistency) {
    return QuireClient.builder("127.0.0.1:" + server.getPort()).plaintext().apiKey("k")
        .sessionConsistency(sessionConsistency).build();
  }

  @AfterEach
  void stop() {
    client.close();
    server.shutdownNow();
  }

  private void watch(QuireClient c) {
    try (CallStream<Document> stream =
        c.watchDocuments(WatchDocumentsRequest.newBuilder().setCollectionId("c1").build())) {
      stream.forEach(d -> {});
    }
  }

  @Test
  void theHighestPositionWinsNotTheHighestText() {
    var tokens = new ConsistencyTokens(true);
    assertEquals(Optional.empty(), tokens.current());
    tokens.advance("0/FFFFFFFF");
    tokens.advance("1/0");
    assertEquals(Optional.of("1/0"), tokens.current());
    tokens.advance("0/FFFFFFFF"); // "0/FFFFFFFF" > "1/0" as text, not as a position
    tokens.advance("0/10");
    assertEquals(Optional.of("1/0"), tokens.current());
    tokens.advance("A/0");
    tokens.advance("9/FFFFFFFF"); // longer text, lower position
    assertEquals(Optional.of("A/0"), tokens.current());
    tokens.advance("FFFFFFFF/0"); // the top bit set: compared unsigned
    assertEquals(Optional.of("FFFFFFFF/0"), tokens.current());
  }

  @Test
  void aMalformedTokenIsRefusedByAdvanceAndIgnoredInAResponse() {
    var tokens = new ConsistencyTokens(true);
    for (String bad : new String[] {"", "nope", "0/", "1/2/3", "123456789/0", "0x1/2", "-1/2"}) {
      assertThrows(IllegalArgumentException.class, () -> tokens.advance(bad), bad);
    }
    assertThrows(IllegalArgumentException.class, () -> tokens.advance(null));
    assertEquals(Optional.empty(), tokens.current());

    client.consistency().advance("0/5");
    trailerToken = "garbage";
    assertEquals("c1", client.createCollection("x").getCollectionId());
    assertEquals("c9", client.getCollection("c9").getCollectionId());
    assertEquals(Optional.of("0/5"), client.consistency().current());
  }

  @Test
  void aWritesTokenIsSentWithTheNextReadAndNotWithWrites() {
    trailerToken = "0/16B3748";
    client.createCollection("x");
    assertEquals(Optional.of("0/16B3748"), client.consistency().current());
    assertSame(client.consistency(), client.async().consistency());

    client.createCollection("y");
    assertEquals(NONE, received.get("CreateCollection"));
    trailerToken = null;
    client.getCollection("c1");
    assertEquals("0/16B3748", received.get("GetCollection"));
    // The async face and a withTimeout view share the tokens.
    QuireClient.await(client.async().getCollection("c1"));
    assertEquals("0/16B3748", received.get("GetCollection"));
    assertSame(client.consistency(), client.withTimeout(java.time.Duration.ofSeconds(5)).consistency());
  }

  @Test
  void aWatchMessagesTokenIsKept() {
    watchToken = "2/40";
    watch(client);
    assertEquals(Optional.of("2/40"), client.consistency().current());
    client.getCollection("c1");
    assertEquals("2/40", received.get("GetCollection"));

    watchToken = ""; // a server without replicas
    watch(client);
    assertEquals(Optional.of("2/40"), client.consistency().current());
  }

  @Test
  void disabledSendsAndKeepsNothing() {
    client.close();
    client = connect(false);
    assertEquals(false, client.consistency().enabled());
    trailerToken = "0/99";
    watchToken = "3/0";
    client.createCollection("x");
    watch(client);
    assertEquals(Optional.empty(), client.consistency().current());
    client.getCollection("c1");
    assertEquals(NONE, received.get("GetCollection"));
    List.of("CreateCollection", "WatchDocuments").forEach(rpc -> assertEquals(NONE, received.get(rpc)));
  }
}
