package dev.quire.client;

import com.google.protobuf.Struct;

/**
 * One document of a batch upload: its file name and bytes, optionally an external key (uploading
 * the same key again updates that document, or leaves it unchanged), metadata (a JSON object
 * as a Struct; null keeps a replaced document's own) and a MIME type ("" = from the name).
 */
public record UploadItem(
    String fileName, byte[] data, String externalKey, Struct metadata, String mimeType) {
  public static UploadItem of(String fileName, byte[] data) {
    return new UploadItem(fileName, data, null, null, "");
  }

  public UploadItem withExternalKey(String key) {
    return new UploadItem(fileName, data, key, metadata, mimeType);
  }

  public UploadItem withMetadata(Struct value) {
    return new UploadItem(fileName, data, externalKey, value, mimeType);
  }
}
