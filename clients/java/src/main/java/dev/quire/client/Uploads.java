package dev.quire.client;

import com.google.protobuf.ByteString;
import dev.quire.v1.UploadDocumentRequest;
import dev.quire.v1.UploadDocumentsRequest;
import dev.quire.v1.UploadMetadata;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/** The request messages of the upload streams: metadata first, then data in 1 MiB pieces. */
public final class Uploads {
  /** The size of every data message but the last of a document (1 MiB). */
  public static final int CHUNK_SIZE = 1024 * 1024;
  /** The most documents one UploadDocuments call takes. */
  public static final int MAX_BATCH_DOCUMENTS = 1000;

  private Uploads() {}

  static List<UploadDocumentRequest> single(UploadMetadata metadata, byte[] data) {
    List<UploadDocumentRequest> out = new ArrayList<>();
    out.add(UploadDocumentRequest.newBuilder().setMetadata(metadata).build());
    for (ByteString piece : pieces(data)) {
      out.add(UploadDocumentRequest.newBuilder().setData(piece).build());
    }
    return out;
  }

  /** The metadata message, then `data` read lazily in 1 MiB messages (a read error: unchecked). */
  static Iterable<UploadDocumentRequest> single(UploadMetadata metadata, InputStream data) {
    return () ->
        new Iterator<>() {
          private UploadDocumentRequest next =
              UploadDocumentRequest.newBuilder().setMetadata(metadata).build();

          @Override
          public boolean hasNext() {
            if (next == null) {
              try {
                byte[] piece = data.readNBytes(CHUNK_SIZE);
                if (piece.length > 0) {
                  next = UploadDocumentRequest.newBuilder().setData(ByteString.copyFrom(piece)).build();
                }
              } catch (IOException e) {
                throw new UncheckedIOException("reading the upload's data", e);
              }
            }
            return next != null;
          }

          @Override
          public UploadDocumentRequest next() {
            if (!hasNext()) {
              throw new NoSuchElementException();
            }
            UploadDocumentRequest out = next;
            next = null;
            return out;
          }
        };
  }

  static List<UploadDocumentsRequest> batch(List<UploadItem> items, String collectionId) {
    List<UploadDocumentsRequest> out = new ArrayList<>();
    for (UploadItem item : items) {
      out.add(UploadDocumentsRequest.newBuilder().setMetadata(metadata(item, collectionId)).build());
      for (ByteString piece : pieces(item.data())) {
        out.add(UploadDocumentsRequest.newBuilder().setData(piece).build());
      }
    }
    return out;
  }

  static UploadMetadata metadata(UploadItem item, String collectionId) {
    var meta = UploadMetadata.newBuilder().setCollectionId(collectionId).setFileName(item.fileName());
    if (item.externalKey() != null) {
      meta.setExternalKey(item.externalKey());
    }
    if (item.metadata() != null) {
      meta.setMetadata(item.metadata());
    }
    if (item.mimeType() != null) {
      meta.setMimeType(item.mimeType());
    }
    return meta.build();
  }

  /** `data` cut into pieces of exactly 1 MiB (the last may be shorter; none for no bytes). */
  static List<ByteString> pieces(byte[] data) {
    List<ByteString> out = new ArrayList<>();
    for (int at = 0; at < data.length; at += CHUNK_SIZE) {
      out.add(ByteString.copyFrom(data, at, Math.min(CHUNK_SIZE, data.length - at)));
    }
    return out;
  }

  /** The items cut into calls of at most 1,000 documents and `maxBytes` bytes (a larger item alone). */
  static List<List<UploadItem>> batches(List<UploadItem> items, long maxBytes) {
    List<List<UploadItem>> out = new ArrayList<>();
    List<UploadItem> current = new ArrayList<>();
    long bytes = 0;
    for (UploadItem item : items) {
      boolean full = current.size() >= MAX_BATCH_DOCUMENTS || bytes + item.data().length > maxBytes;
      if (!current.isEmpty() && full) {
        out.add(current);
        current = new ArrayList<>();
        bytes = 0;
      }
      current.add(item);
      bytes += item.data().length;
    }
    if (!current.isEmpty()) {
      out.add(current);
    }
    return out;
  }
}
