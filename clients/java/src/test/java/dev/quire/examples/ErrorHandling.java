package dev.quire.examples;

import dev.quire.client.QuireClient;
import dev.quire.client.QuireErrors;
import dev.quire.client.QuireException;
import dev.quire.v1.FieldViolation;
import dev.quire.v1.PageRead;
import dev.quire.v1.ReadPageRequest;
import dev.quire.v1.SearchPagesRequest;

/** docs/clients/java.md, "Errors": catch by type, read the detail, make tool JSON. */
public final class ErrorHandling {
  private ErrorHandling() {}

  /** Reads a page at a pinned revision, or at the current one when the page has changed. */
  static PageRead readPinned(QuireClient client, String namespace, String path, String pinned) {
    // doc:start
    ReadPageRequest request = ReadPageRequest.newBuilder()
        .setNamespace(namespace).setPath(path).setRevision(pinned).build();
    try {
      return client.readPage(request);
    } catch (QuireErrors.PageChanged e) {
      // The detail says which revision to read instead.
      return client.readPage(request.toBuilder().setRevision(e.currentRevision()).build());
    }
    // doc:end
  }

  /** A search with a limit out of bounds: the field and the bound it broke, and the tool JSON. */
  static String outOfBounds(QuireClient client, String namespace) {
    // doc:start
    try {
      client.searchPages(SearchPagesRequest.newBuilder()
          .setNamespace(namespace).setQuery("revision").setLimit(500).build());
      return "no error";
    } catch (QuireErrors.InvalidRequest e) {
      for (FieldViolation v : e.fieldViolations()) {
        System.out.println(v.getField() + ": " + v.getDescription() + " (bound " + v.getBound() + ")");
      }
      // What an agent tool returns instead of failing:
      // {"schema_version":1,"error":"invalid_request","message":"…","field":"limit","bound":"…"}
      return e.toToolError();
    } catch (QuireException e) {
      // Every other failure: e.code(), e.grpcCode(), e.detail(), e.retryAfter().
      return QuireException.toToolError(e);
    }
    // doc:end
  }
}
