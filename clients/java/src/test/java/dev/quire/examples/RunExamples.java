package dev.quire.examples;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.quire.client.QuireClient;
import dev.quire.client.Searchable;
import dev.quire.v1.SyncStatus;
import java.util.UUID;

/**
 * Runs every guide example (and a folder upload, twice) against the conformance harness's
 * server and checks what each gives (tests/integration/test_conformance_java.py runs it):
 * {@code python -m tests.conformance.harness -- java -cp ... dev.quire.examples.RunExamples}.
 */
public final class RunExamples {
  private RunExamples() {}

  private static void expect(boolean condition, String what) {
    if (!condition) {
      throw new AssertionError(what);
    }
  }

  public static void main(String[] args) throws java.io.IOException {
    String address = System.getenv("QUIRE_CONFORMANCE_ADDRESS");
    JsonObject keys = JsonParser.parseString(System.getenv("QUIRE_CONFORMANCE_KEYS")).getAsJsonObject();
    JsonObject fixtures = JsonParser.parseString(System.getenv("QUIRE_CONFORMANCE_FIXTURES")).getAsJsonObject();
    String namespace = "examples-" + UUID.randomUUID().toString().substring(0, 8);
    try (QuireClient client = QuireClient.builder(address).plaintext()
        .apiKey(keys.get("all").getAsString()).build()) {
      expect(FirstCall.run(address, keys.get("read").getAsString()) >= 0, "first call");

      var report = SyncWithProgress.sync(client, namespace, fixtures.get("site_url").getAsString() + "/llms.txt");
      expect(report.getStatus() == SyncStatus.SYNC_STATUS_COMPLETED, "sync completed: " + report);

      // The same sync through the asynchronous face: nothing changed since.
      var again = client.async().syncPages(dev.quire.v1.SyncStart.newBuilder().setNamespace(namespace)
          .setUrl(fixtures.get("site_url").getAsString() + "/llms.txt").setPublicUrl("https://docs.example.test")
          .build(), check -> true, null).join();
      expect(again.getStatus() == SyncStatus.SYNC_STATUS_UNCHANGED, "async sync unchanged: " + again);

      var hit = client.searchPages(dev.quire.v1.SearchPagesRequest.newBuilder()
          .setNamespace(namespace).setQuery("marmalade").build()).getHits(0);
      var read = ErrorHandling.readPinned(client, namespace, hit.getPath(), "0000stale");
      expect(read.getPage().getPath().equals(hit.getPath()), "read at the current revision");
      String toolError = ErrorHandling.outOfBounds(client, namespace);
      expect(toolError.startsWith("{\"schema_version\":1,\"error\":\"invalid_request\""), toolError);
      expect(toolError.contains("\"field\":\"limit\""), toolError);

      String collection = client.createCollection("examples-" + namespace).getCollectionId();
      Searchable.Result ready = UploadDocuments.upload(client, collection);
      expect(ready.complete() && ready.outcomes().size() == 3, "uploads searchable: " + ready);

      // A folder upload keys files by their relative path: a second run changes nothing.
      java.nio.file.Path folder = java.nio.file.Files.createTempDirectory("quire-folder");
      java.nio.file.Files.createDirectories(folder.resolve("guide"));
      java.nio.file.Files.writeString(folder.resolve("guide/intro.md"), "# Intro\nHello.");
      java.nio.file.Files.writeString(folder.resolve("notes.txt"), "plain notes");
      java.nio.file.Files.write(folder.resolve("big.txt"), "word ".repeat(300_000).getBytes()); // > 1 MiB
      var first = client.uploadFolder(collection, folder, 2, null);
      expect(first.size() == 3 && first.stream().allMatch(r -> r.ok()
          && r.outcome() == dev.quire.v1.UploadOutcome.UPLOAD_OUTCOME_CREATED), "folder upload: " + first.stream().map(r -> r.externalKey() + " " + r.outcome() + " " + r.error()).toList());
      expect(first.get(1).externalKey().equals("guide/intro.md"), "keys are relative paths: " + first);
      var second = client.uploadFolder(collection, folder, 2, null);
      expect(second.stream().allMatch(r -> r.outcome() == dev.quire.v1.UploadOutcome.UPLOAD_OUTCOME_UNCHANGED),
          "second folder upload unchanged: " + second);

      String answer = ToolLoop.ask(client, namespace, "marmalade");
      expect(answer.startsWith("From /guide/intro.md"), "tool loop answer: " + answer);
      System.out.println("examples passed");
    }
  }
}
