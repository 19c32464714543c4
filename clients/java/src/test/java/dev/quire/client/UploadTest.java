package dev.quire.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quire.v1.Document;
import dev.quire.v1.KnowledgeServiceGrpc;
import dev.quire.v1.UploadDocumentRequest;
import dev.quire.v1.UploadDocumentResponse;
import dev.quire.v1.UploadMetadata;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Uploads over a real loopback server that records the messages it receives. */
class UploadTest {
  private final List<Integer> pieces = new CopyOnWriteArrayList<>();
  private Server server;
  private QuireClient client;

  @BeforeEach
  void start() throws Exception {
    server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
        .addService(new KnowledgeServiceGrpc.KnowledgeServiceImplBase() {
          @Override
          public StreamObserver<UploadDocumentRequest> uploadDocument(StreamObserver<UploadDocumentResponse> reply) {
            return new StreamObserver<>() {
              private String name = "";

              @Override
              public void onNext(UploadDocumentRequest message) {
                if (message.hasMetadata()) {
                  name = message.getMetadata().getFileName();
                } else {
                  pieces.add(message.getData().size());
                }
              }

              @Override
              public void onError(Throwable t) {
                pieces.add(-1);
              }

              @Override
              public void onCompleted() {
                reply.onNext(UploadDocumentResponse.newBuilder()
                    .setDocument(Document.newBuilder().setFileName(name)).build());
                reply.onCompleted();
              }
            };
          }
        })
        .build()
        .start();
    client = QuireClient.builder("127.0.0.1:" + server.getPort()).plaintext().build();
  }

  @AfterEach
  void stop() {
    client.close();
    server.shutdownNow();
  }

  @Test
  void dataIsSentInMebibytePiecesAfterTheMetadata() {
    byte[] data = new byte[3 * Uploads.CHUNK_SIZE + 1];
    var meta = UploadMetadata.newBuilder().setCollectionId("c").setFileName("big.bin").build();
    assertEquals("big.bin", client.uploadDocument(meta, new ByteArrayInputStream(data)).getFileName());
    assertEquals(List.of(Uploads.CHUNK_SIZE, Uploads.CHUNK_SIZE, Uploads.CHUNK_SIZE, 1), pieces);
    pieces.clear();
    assertEquals("big.bin", client.uploadDocument(meta, data).getFileName());
    assertEquals(4, pieces.size());
  }

  @Test
  void aReadErrorFailsTheUploadWithItAndCancelsTheCall() throws Exception {
    InputStream broken = new InputStream() {
      private long left = Uploads.CHUNK_SIZE; // the first piece reads, the second fails

      @Override
      public int read() throws IOException {
        throw new IOException("disk gone");
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (left == 0) {
          throw new IOException("disk gone");
        }
        int n = (int) Math.min(len, left);
        left -= n;
        return n;
      }
    };
    var meta = UploadMetadata.newBuilder().setCollectionId("c").setFileName("x").build();
    long started = System.nanoTime();
    var error = assertThrows(UncheckedIOException.class, () -> client.uploadDocument(meta, broken));
    System.out.println("upload failed after " + (System.nanoTime() - started) / 1_000_000 + " ms");
    assertEquals("disk gone", error.getCause().getMessage());
    for (int i = 0; i < 50 && !pieces.contains(-1); i++) {
      Thread.sleep(20); // the server sees the cancellation shortly after
    }
    // The call is cancelled: the server never completes it (what was buffered may be dropped).
    assertEquals(-1, pieces.get(pieces.size() - 1));
  }
}
