package dev.quire.examples;

import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import dev.quire.client.QuireClient;
import dev.quire.client.Searchable;
import dev.quire.client.UploadItem;
import dev.quire.v1.Document;
import dev.quire.v1.UploadDocumentsResponse;
import dev.quire.v1.UploadMetadata;
import dev.quire.v1.UploadResult;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** docs/clients/java.md, "An upload": one stream, a batch with keys, waiting until searchable. */
public final class UploadDocuments {
  private UploadDocuments() {}

  static Searchable.Result upload(QuireClient client, String collectionId) {
    InputStream handbook = new ByteArrayInputStream(
        "Refunds are paid within 14 days of the request.".getBytes(StandardCharsets.UTF_8));
    // doc:start
    // One document, streamed in 1 MiB messages (any InputStream: a file, a download...).
    Document policy = client.uploadDocument(
        UploadMetadata.newBuilder()
            .setCollectionId(collectionId)
            .setFileName("refunds.txt")
            .setExternalKey("policies/refunds.txt") // uploading the same key again updates it
            .build(),
        handbook);

    // Many small documents in one call (cut into several above 1,000 documents or 64 MiB).
    Struct team = Struct.newBuilder()
        .putFields("team", Value.newBuilder().setStringValue("support").build())
        .build();
    UploadDocumentsResponse batch = client.uploadDocuments(collectionId, List.of(
        UploadItem.of("faq.md", "# FAQ\nShipping takes 3 days.".getBytes(StandardCharsets.UTF_8))
            .withExternalKey("faq.md").withMetadata(team),
        UploadItem.of("hours.txt", "Open 9 to 5.".getBytes(StandardCharsets.UTF_8))
            .withExternalKey("hours.txt")));
    List<String> ids = new ArrayList<>(List.of(policy.getDocumentId()));
    for (UploadResult r : batch.getResultsList()) {
      if (r.hasError()) {
        System.out.println(r.getIndex() + " refused: " + r.getError().getMessage());
      } else {
        System.out.println(r.getIndex() + " " + r.getOutcome() + " " + r.getDocument().getDocumentId());
        ids.add(r.getDocument().getDocumentId());
      }
    }

    // Extraction and indexing run in the background: wait until a search can find them.
    Searchable.Result ready = client.waitUntilSearchable(ids, Duration.ofSeconds(60));
    for (Searchable.DocumentOutcome o : ready.outcomes()) {
      System.out.println(o.documentId() + " " + o.outcome() + " " + o.reason());
    }
    // doc:end
    return ready;
  }
}
