package dev.quire.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import dev.quire.v1.Collection;
import dev.quire.v1.CreateCollectionRequest;
import dev.quire.v1.CreateCollectionResponse;
import dev.quire.v1.ErrorCode;
import dev.quire.v1.ErrorDetail;
import dev.quire.v1.GetCollectionRequest;
import dev.quire.v1.GetCollectionResponse;
import dev.quire.v1.KnowledgeServiceGrpc;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Retries over a real loopback gRPC server that answers UNAVAILABLE a set number of times. */
class RetryTest {
  private final AtomicInteger reads = new AtomicInteger();
  private final AtomicInteger writes = new AtomicInteger();
  private volatile int failures;
  private volatile Duration retryAfter;
  private Server server;
  private QuireClient client;

  private void unavailable(StreamObserver<?> observer) {
    Metadata trailers = new Metadata();
    var detail = ErrorDetail.newBuilder().setCode(ErrorCode.ERROR_CODE_UNAVAILABLE).setMessage("busy");
    if (retryAfter != null) {
      detail.setRetryAfter(com.google.protobuf.Duration.newBuilder().setSeconds(retryAfter.getSeconds()));
    }
    var status = com.google.rpc.Status.newBuilder().setCode(Status.Code.UNAVAILABLE.value())
        .setMessage("busy").addDetails(Any.pack(detail.build())).build();
    trailers.put(Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER), status.toByteArray());
    observer.onError(Status.UNAVAILABLE.withDescription("busy").asRuntimeException(trailers));
  }

  @BeforeEach
  void start() throws Exception {
    server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
        .addService(new KnowledgeServiceGrpc.KnowledgeServiceImplBase() {
          @Override
          public void getCollection(GetCollectionRequest request, StreamObserver<GetCollectionResponse> observer) {
            if (reads.incrementAndGet() <= failures) {
              unavailable(observer);
              return;
            }
            observer.onNext(GetCollectionResponse.newBuilder()
                .setCollection(Collection.newBuilder().setCollectionId(request.getCollectionId())).build());
            observer.onCompleted();
          }

          @Override
          public void createCollection(CreateCollectionRequest request, StreamObserver<CreateCollectionResponse> observer) {
            writes.incrementAndGet();
            unavailable(observer);
          }
        })
        .build()
        .start();
    client = QuireClient.builder("127.0.0.1:" + server.getPort()).plaintext().apiKey("k")
        .retry(new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(50), 2.0)).build();
  }

  @AfterEach
  void stop() {
    client.close();
    server.shutdownNow();
  }

  @Test
  void anIdempotentReadIsRetriedOnUnavailableUpToMaxAttempts() {
    failures = 2;
    assertEquals("c1", client.getCollection("c1").getCollectionId());
    assertEquals(3, reads.get());
    reads.set(0);
    failures = 3;
    var error = assertThrows(QuireErrors.Unavailable.class, () -> client.getCollection("c1"));
    assertEquals(3, reads.get());
    assertEquals("busy", error.detail().getMessage());
  }

  @Test
  void aWriteIsNeverRetried() {
    assertThrows(QuireErrors.Unavailable.class, () -> client.createCollection("x"));
    assertEquals(1, writes.get());
  }

  @Test
  void noRetryWaitsPastTheDeadline() {
    failures = 5;
    retryAfter = Duration.ofSeconds(5); // longer than the whole call may take
    long started = System.nanoTime();
    assertThrows(QuireErrors.Unavailable.class,
        () -> client.withTimeout(Duration.ofSeconds(1)).getCollection("c1"));
    assertEquals(1, reads.get());
    assertTrue(System.nanoTime() - started < 1_000_000_000L);
  }

  @Test
  void theAsyncFaceFailsWithTheSameTypedException() {
    failures = 5;
    var future = client.async().getCollection("c1");
    var error = assertThrows(java.util.concurrent.CompletionException.class, future::join);
    assertTrue(error.getCause() instanceof QuireErrors.Unavailable);
  }
}
