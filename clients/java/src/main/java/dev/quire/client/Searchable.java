package dev.quire.client;

import dev.quire.v1.Document;
import dev.quire.v1.DocumentIndexState;
import dev.quire.v1.DocumentStatus;
import dev.quire.v1.ListDocumentsRequest;
import dev.quire.v1.WatchDocumentsRequest;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@link QuireClient#waitUntilSearchable}: what became of each document within a timeout,
 * watched with WatchDocuments (one watch per collection, restricted to the documents still
 * pending, reopened when the connection drops).
 */
public final class Searchable {
  /** What became of a document. */
  public enum Outcome {
    /** Its current text is in the serving index. */
    INDEXED,
    /** Extraction failed (reason: the extract_error). */
    FAILED,
    /** Extracted, but it has no text to index. */
    NO_TEXT,
    /** Deleted, or never found. */
    DELETED,
    /** None of the above before the timeout. */
    TIMED_OUT
  }

  /** One document's outcome; reason is the extract_error for FAILED, else "". */
  public record DocumentOutcome(String documentId, Outcome outcome, String reason) {}

  /** The outcomes in the order asked (a collection's: ascending id); complete: no TIMED_OUT. */
  public record Result(List<DocumentOutcome> outcomes, boolean complete) {}

  private final QuireClient client;
  private final Map<String, DocumentOutcome> done = new LinkedHashMap<>();
  private final Map<String, String> pending = new LinkedHashMap<>(); // id → collection

  Searchable(QuireClient client) {
    this.client = client;
  }

  Result byIds(List<String> documentIds, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (String id : new LinkedHashSet<>(documentIds)) {
      try {
        settle(client.getDocument(id));
      } catch (QuireErrors.DocumentNotFound e) {
        done.put(id, new DocumentOutcome(id, Outcome.DELETED, ""));
      }
    }
    watch(deadline);
    return result(documentIds);
  }

  Result byCollection(String collectionId, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    var request = ListDocumentsRequest.newBuilder().setCollectionId(collectionId).build();
    Map<String, Document> byId = new TreeMap<>();
    for (Document d : client.documents(request, 0)) {
      byId.put(d.getDocumentId(), d);
    }
    byId.values().forEach(this::settle);
    watch(deadline);
    return result(new ArrayList<>(byId.keySet()));
  }

  private Result result(List<String> order) {
    List<DocumentOutcome> out = new ArrayList<>();
    boolean complete = true;
    for (String id : order) {
      DocumentOutcome o = done.getOrDefault(id, new DocumentOutcome(id, Outcome.TIMED_OUT, ""));
      complete &= o.outcome() != Outcome.TIMED_OUT;
      out.add(o);
    }
    return new Result(out, complete);
  }

  /** The outcome a document's state settles, or null while it is pending. */
  static DocumentOutcome outcome(Document d) {
    String id = d.getDocumentId();
    if (d.getStatus() == DocumentStatus.DOCUMENT_STATUS_DELETED) {
      return new DocumentOutcome(id, Outcome.DELETED, "");
    }
    if (d.getStatus() == DocumentStatus.DOCUMENT_STATUS_FAILED
        || d.getIndexState() == DocumentIndexState.DOCUMENT_INDEX_STATE_FAILED) {
      return new DocumentOutcome(id, Outcome.FAILED, d.getExtractError());
    }
    if (d.getIndexState() == DocumentIndexState.DOCUMENT_INDEX_STATE_INDEXED) {
      return new DocumentOutcome(id, Outcome.INDEXED, "");
    }
    if (d.getIndexState() == DocumentIndexState.DOCUMENT_INDEX_STATE_NO_TEXT) {
      return new DocumentOutcome(id, Outcome.NO_TEXT, "");
    }
    return null;
  }

  private void settle(Document d) {
    DocumentOutcome o = outcome(d);
    if (o != null) {
      done.put(d.getDocumentId(), o);
      pending.remove(d.getDocumentId());
    } else if (!done.containsKey(d.getDocumentId())) {
      pending.put(d.getDocumentId(), d.getCollectionId());
    }
  }

  private static final Object ENDED = new Object();

  /** Watches the pending documents until each settles or the deadline passes. */
  private void watch(long deadline) {
    while (!pending.isEmpty()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return;
      }
      QuireClient bounded = client.withTimeout(Duration.ofNanos(left));
      Map<String, List<String>> byCollection = new LinkedHashMap<>();
      pending.forEach((id, c) -> byCollection.computeIfAbsent(c, k -> new ArrayList<>()).add(id));
      LinkedBlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
      List<CallStream<Document>> streams = new ArrayList<>();
      try {
        for (var entry : byCollection.entrySet()) {
          var request = WatchDocumentsRequest.newBuilder()
              .setCollectionId(entry.getKey()).addAllDocumentIds(entry.getValue()).build();
          CallStream<Document> stream = bounded.watchDocuments(request);
          streams.add(stream);
          Thread reader = new Thread(() -> {
            try {
              stream.forEach(inbox::add);
              inbox.add(ENDED);
            } catch (QuireException e) {
              inbox.add(e);
            }
          }, "quire-watch");
          reader.setDaemon(true);
          reader.start();
        }
        // A change between the first look and the watch's start is seen by looking again.
        for (String id : new ArrayList<>(pending.keySet())) {
          try {
            settle(client.getDocument(id));
          } catch (QuireErrors.DocumentNotFound e) {
            done.put(id, new DocumentOutcome(id, Outcome.DELETED, ""));
            pending.remove(id);
          }
        }
        if (!drain(inbox, deadline)) {
          return;
        }
      } finally {
        streams.forEach(CallStream::close);
      }
    }
  }

  /** Reads watch messages; true when the watches must be reopened (dropped or ended). */
  private boolean drain(LinkedBlockingQueue<Object> inbox, long deadline) {
    while (!pending.isEmpty()) {
      Object item;
      try {
        item = inbox.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
      if (item == null) {
        return false; // the deadline passed
      }
      if (item instanceof Document) {
        Document d = (Document) item;
        if (pending.containsKey(d.getDocumentId())) {
          settle(d);
        }
      } else if (item == ENDED) {
        return true;
      } else {
        QuireException e = (QuireException) item;
        if (e.grpcCode() == Status.Code.UNAVAILABLE) {
          return true;
        }
        if (e.grpcCode() == Status.Code.DEADLINE_EXCEEDED || e.grpcCode() == Status.Code.CANCELLED) {
          return false;
        }
        throw e;
      }
    }
    return false;
  }
}
