// Uploading one file as an UploadDocument client stream: the metadata message, then the
// bytes in 1 MiB data messages (base64 in JSON), sent as one body with progress.

import { clientStream, envelope, type Upload } from "./connect.js";
import type { Document } from "./types.js";

// The server's default upload bound (Settings.max_upload_bytes). Checked here first so a
// file too large is refused at once instead of after sending it; a server configured lower
// still refuses with its own message (PAYLOAD_TOO_LARGE).
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;
const PIECE_BYTES = 1024 * 1024;

export function tooLarge(file: File): string | null {
  if (file.size <= MAX_UPLOAD_BYTES) return null;
  const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
  return `${file.name} is ${mib(file.size)} MiB; files up to ${mib(MAX_UPLOAD_BYTES)} MiB are accepted. Nothing was uploaded.`;
}

function base64Of(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(",") + 1));
    };
    reader.onerror = () => reject(new Error(`cannot read ${blob instanceof File ? blob.name : "the file"}`));
    reader.readAsDataURL(blob);
  });
}

async function body(file: File, collectionId: string, documentId?: string): Promise<Blob> {
  const metadata: Record<string, string> = { collectionId, fileName: file.name };
  if (file.type) metadata.mimeType = file.type;
  if (documentId) metadata.documentId = documentId;
  const parts: BlobPart[] = [envelope({ metadata })];
  for (let at = 0; at < file.size; at += PIECE_BYTES) {
    parts.push(envelope({ data: await base64Of(file.slice(at, at + PIECE_BYTES)) }));
  }
  return new Blob(parts);
}

/** Starts an upload (a new document, or a new version of `documentId`). */
export async function upload(
  file: File,
  collectionId: string,
  onProgress: (fraction: number) => void,
  documentId?: string,
): Promise<Upload<{ document?: Document }>> {
  const framed = await body(file, collectionId, documentId);
  return clientStream("KnowledgeService/UploadDocument", framed, (sent, total) =>
    onProgress(total > 0 ? sent / total : 0),
  );
}
