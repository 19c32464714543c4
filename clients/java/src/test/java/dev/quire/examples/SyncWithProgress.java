package dev.quire.examples;

import dev.quire.client.QuireClient;
import dev.quire.v1.SyncPagesResponse;
import dev.quire.v1.SyncReport;
import dev.quire.v1.SyncStart;

/** docs/clients/java.md, "A sync with progress". */
public final class SyncWithProgress {
  private SyncWithProgress() {}

  static SyncReport sync(QuireClient client, String namespace, String llmsTxtUrl) {
    // doc:start
    SyncStart start = SyncStart.newBuilder()
        .setNamespace(namespace)
        .setUrl(llmsTxtUrl)
        .setPublicUrl("https://docs.example.test")
        .build();
    SyncReport report = client.syncPagesReport(
        start,
        // After discovery and before any fetch: go on only with a sane number of pages.
        check -> check.getDiscovered() < 5000,
        (SyncPagesResponse message) -> {
          if (message.hasProgress()) {
            var p = message.getProgress();
            System.out.println(p.getStage() + " " + p.getProcessed() + " " + p.getPath());
          }
        });
    System.out.println(report.getStatus() + ": " + report.getDiscovered() + " discovered, "
        + report.getUpdated() + " updated, " + report.getDeleted() + " deleted");
    // doc:end
    return report;
  }
}
