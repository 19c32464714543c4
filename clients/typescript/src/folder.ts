/**
 * The files `uploadFolder` takes from a folder and how it groups them into calls.
 *
 * Hidden files and folders (a name starting with ".") are left out, as `quire docs upload`
 * does: they are editor, VCS and OS droppings (.git, .DS_Store), not documents. Symbolic links
 * to files are followed; links to folders are not (no cycles).
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

import { MAX_BATCH_DOCUMENTS } from "./batches.js";
import { CHUNK_SIZE } from "./uploads.js";

/** Files larger than this are streamed with UploadDocument, one call each. */
export const LARGE_FILE_BYTES = CHUNK_SIZE;

export interface FolderFile {
  /** Absolute or folder-joined path to read. */
  path: string;
  /** The path relative to the folder, with "/" separators (the default external key). */
  relativePath: string;
  /** The file's name (the last segment). */
  fileName: string;
  sizeBytes: number;
}

/** Every non-hidden regular file under `folder`, in relative-path order. */
export async function walkFolder(folder: string): Promise<FolderFile[]> {
  const files: FolderFile[] = [];
  async function visit(dir: string, prefix: string): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      const relativePath = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        await visit(path, relativePath);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        const info = await stat(path).catch(() => undefined); // a dangling link is skipped
        if (info?.isFile()) files.push({ path, relativePath, fileName: entry.name, sizeBytes: info.size });
      }
    }
  }
  await visit(folder, "");
  // Sorted per folder while walking; sort again so "a/b" and "a.txt" follow plain string order.
  files.sort((a, b) => (a.relativePath < b.relativePath ? -1 : a.relativePath > b.relativePath ? 1 : 0));
  return files;
}

/**
 * How many small files one call carries: enough calls to keep `concurrency` of them busy,
 * never more than the server's 1,000 documents.
 */
export function smallBatchSize(smallFiles: number, concurrency: number): number {
  const workers = Math.max(1, Math.floor(concurrency));
  return Math.max(1, Math.min(MAX_BATCH_DOCUMENTS, Math.ceil(smallFiles / workers)));
}
