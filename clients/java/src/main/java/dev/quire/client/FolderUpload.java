package dev.quire.client;

import com.google.protobuf.Struct;
import dev.quire.v1.Document;
import dev.quire.v1.ErrorDetail;
import dev.quire.v1.UploadDocumentResponse;
import dev.quire.v1.UploadDocumentsResponse;
import dev.quire.v1.UploadMetadata;
import dev.quire.v1.UploadOutcome;
import dev.quire.v1.UploadResult;
import io.grpc.Status;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@link QuireClient#uploadFolder}: every regular file under a folder, named by its file name
 * and keyed by its path relative to the folder (with "/"), so running it again changes only what changed. Small
 * files go in batches over UploadDocuments, larger ones (over 1 MiB) are streamed one by one;
 * {@code concurrency} calls run at once; a failure is that file's result, never the end.
 */
public final class FolderUpload {
  /** One file's result: its outcome and document, or the error that refused it. */
  public record FileResult(
      Path path, String externalKey, UploadOutcome outcome, Document document, QuireException error) {
    public boolean ok() {
      return error == null;
    }
  }

  private static final long BATCH_BYTES = 16L * 1024 * 1024;

  private final QuireClient client;

  FolderUpload(QuireClient client) {
    this.client = client;
  }

  /** The key of a file: its path relative to the folder, "/"-separated. */
  static String key(Path folder, Path file) {
    List<String> parts = new ArrayList<>();
    folder.relativize(file).forEach(p -> parts.add(p.toString()));
    return String.join("/", parts);
  }

  List<FileResult> upload(String collectionId, Path folder, int concurrency, Function<Path, Struct> metadata) {
    List<Path> files;
    try (Stream<Path> walk = Files.walk(folder)) {
      files = walk.filter(Files::isRegularFile).sorted().collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException("listing " + folder, e);
    }
    List<Path> small = new ArrayList<>();
    List<Path> large = new ArrayList<>();
    for (Path f : files) {
      (size(f) > Uploads.CHUNK_SIZE ? large : small).add(f);
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, concurrency));
    try {
      List<Future<List<FileResult>>> tasks = new ArrayList<>();
      for (List<Path> batch : batches(small)) {
        tasks.add(pool.submit(() -> batch(collectionId, folder, batch, metadata)));
      }
      for (Path f : large) {
        tasks.add(pool.submit(() -> List.of(single(collectionId, folder, f, metadata))));
      }
      List<FileResult> out = new ArrayList<>();
      for (Future<List<FileResult>> task : tasks) {
        out.addAll(join(task));
      }
      out.sort((a, b) -> a.path().compareTo(b.path()));
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  /** A task's value; the tasks catch their own failures, so an exception here is a bug's. */
  private static <T> T join(Future<T> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw QuireException.fromStatus(Status.CANCELLED.withDescription("interrupted"), null, e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException ? (RuntimeException) e.getCause() : new IllegalStateException(e.getCause());
    }
  }

  private static long size(Path f) {
    try {
      return Files.size(f);
    } catch (IOException e) {
      return 0; // read (and reported) when uploaded
    }
  }

  private static List<List<Path>> batches(List<Path> small) {
    List<List<Path>> out = new ArrayList<>();
    List<Path> current = new ArrayList<>();
    long bytes = 0;
    for (Path f : small) {
      if (!current.isEmpty() && (current.size() >= Uploads.MAX_BATCH_DOCUMENTS || bytes + size(f) > BATCH_BYTES)) {
        out.add(current);
        current = new ArrayList<>();
        bytes = 0;
      }
      current.add(f);
      bytes += size(f);
    }
    if (!current.isEmpty()) {
      out.add(current);
    }
    return out;
  }

  private List<FileResult> batch(String collectionId, Path folder, List<Path> files, Function<Path, Struct> metadata) {
    List<FileResult> out = new ArrayList<>();
    List<UploadItem> items = new ArrayList<>();
    List<Path> sent = new ArrayList<>();
    for (Path f : files) {
      try {
        Struct meta = metadata == null ? null : metadata.apply(f);
        items.add(new UploadItem(f.getFileName().toString(), Files.readAllBytes(f), key(folder, f), meta, ""));
        sent.add(f);
      } catch (IOException | RuntimeException e) {
        out.add(failed(folder, f, e));
      }
    }
    if (items.isEmpty()) {
      return out;
    }
    try {
      UploadDocumentsResponse reply = QuireClient.await(client.async().uploadBatch(items, collectionId));
      for (UploadResult r : reply.getResultsList()) {
        Path f = sent.get(r.getIndex());
        out.add(r.hasError()
            ? new FileResult(f, key(folder, f), UploadOutcome.UPLOAD_OUTCOME_UNSPECIFIED, null, of(r.getError()))
            : new FileResult(f, key(folder, f), r.getOutcome(), r.getDocument(), null));
      }
    } catch (RuntimeException e) {
      sent.forEach(f -> out.add(failed(folder, f, e)));
    }
    return out;
  }

  private FileResult single(String collectionId, Path folder, Path f, Function<Path, Struct> metadata) {
    try (InputStream data = Files.newInputStream(f)) {
      var meta = UploadMetadata.newBuilder()
          .setCollectionId(collectionId).setFileName(f.getFileName().toString()).setExternalKey(key(folder, f));
      if (metadata != null) {
        Struct value = metadata.apply(f);
        if (value != null) {
          meta.setMetadata(value);
        }
      }
      UploadDocumentResponse reply = QuireClient.await(client.async().uploadStream(meta.build(), data));
      return new FileResult(f, key(folder, f), reply.getOutcome(), reply.getDocument(), null);
    } catch (IOException | RuntimeException e) {
      return failed(folder, f, e);
    }
  }

  private static FileResult failed(Path folder, Path f, Exception e) {
    QuireException qe = QuireException.from(e);
    if (qe == null) {
      // Not the server's refusal: the file could not be read (or a callback failed).
      qe = QuireErrors.of(dev.quire.v1.ErrorCode.ERROR_CODE_INTERNAL, Status.Code.UNKNOWN, String.valueOf(e.getMessage()), null, e);
    }
    return new FileResult(f, key(folder, f), UploadOutcome.UPLOAD_OUTCOME_UNSPECIFIED, null, qe);
  }

  /** The typed exception of a per-document ErrorDetail (UploadResult.error). */
  static QuireException of(ErrorDetail detail) {
    Status.Code status = Contract.GRPC_STATUS_BY_CODE.getOrDefault(detail.getCode(), Status.Code.UNKNOWN);
    return QuireErrors.of(detail.getCode(), status, detail.getMessage(), detail, null);
  }
}
