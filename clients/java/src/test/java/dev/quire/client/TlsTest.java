package dev.quire.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quire.v1.Collection;
import dev.quire.v1.GetCollectionRequest;
import dev.quire.v1.GetCollectionResponse;
import dev.quire.v1.KnowledgeServiceGrpc;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.TlsServerCredentials;
import io.grpc.stub.StreamObserver;
import java.io.File;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS with the caller's roots, over a real loopback server with a fresh self-signed certificate. */
class TlsTest {
  @TempDir Path dir;

  private static boolean openssl(Path dir) throws Exception {
    try {
      Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
          "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
          "-keyout", dir.resolve("key.pem").toString(), "-out", dir.resolve("cert.pem").toString())
          .redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor() == 0;
    } catch (java.io.IOException e) {
      return false;
    }
  }

  @Test
  void callsGoOverTlsWithTheGivenRootsAndCarryTheKey() throws Exception {
    assumeTrue(openssl(dir), "openssl is needed to make a test certificate");
    File cert = dir.resolve("cert.pem").toFile();
    File key = dir.resolve("key.pem").toFile();
    AtomicReference<String> authorization = new AtomicReference<>();
    var service = new KnowledgeServiceGrpc.KnowledgeServiceImplBase() {
      @Override
      public void getCollection(GetCollectionRequest request, StreamObserver<GetCollectionResponse> observer) {
        observer.onNext(GetCollectionResponse.newBuilder()
            .setCollection(Collection.newBuilder().setCollectionId(request.getCollectionId())).build());
        observer.onCompleted();
      }
    };
    Server server = Grpc.newServerBuilderForPort(0, TlsServerCredentials.create(cert, key))
        .addService(ServerInterceptors.intercept(service, new io.grpc.ServerInterceptor() {
          @Override
          public <Q, R> io.grpc.ServerCall.Listener<Q> interceptCall(
              io.grpc.ServerCall<Q, R> call, Metadata headers, io.grpc.ServerCallHandler<Q, R> next) {
            authorization.set(headers.get(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER)));
            return Contexts.interceptCall(io.grpc.Context.current(), call, headers, next);
          }
        }))
        .build()
        .start();
    try {
      try (var client = QuireClient.builder("localhost:" + server.getPort())
          .trustCertificates(cert).apiKey("qk_secret").build()) {
        assertEquals("c1", client.getCollection("c1").getCollectionId());
        assertEquals("Bearer qk_secret", authorization.get());
      }
      // Without those roots the certificate is not trusted: the call fails as UNAVAILABLE.
      try (var client = QuireClient.builder("localhost:" + server.getPort())
          .retry(RetryPolicy.none()).apiKey("qk_secret").build()) {
        assertThrows(QuireErrors.Unavailable.class, () -> client.getCollection("c1"));
      }
    } finally {
      server.shutdownNow();
    }
  }
}
