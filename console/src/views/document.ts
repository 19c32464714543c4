// One document's extracted text, read 4,000 characters at a time as the agent tool reads it.

import { unary } from "../connect.js";
import { charRange, errorLine, h, int, replace } from "../dom.js";
import type { DocumentSlice } from "../types.js";

const SLICE_CHARS = 4000;

export async function documentView(
  root: HTMLElement, collectionId: string, documentId: string, offset: number, signal: AbortSignal,
): Promise<void> {
  const back = h("a", { href: `#/collections/${collectionId}` }, "← collection");
  replace(root, h("h1", {}, "Document"), h("p", {}, back), h("p", {}, "Reading…"));
  try {
    const { slice } = await unary<{ slice: DocumentSlice }>("KnowledgeService/ReadDocument",
      { collectionIds: [collectionId], documentId, offset: String(offset), maxChars: SLICE_CHARS }, signal);
    const start = int(slice.offset);
    const next = int(slice.nextOffset);
    const total = int(slice.totalLength);
    const link = (at: number, label: string) =>
      h("a", { class: "button", href: `#/documents/${collectionId}/${documentId}?offset=${at}` }, label);
    replace(root,
      h("h1", {}, slice.fileName ?? documentId),
      h("p", {}, back),
      h("p", { class: "range", id: "slice-range" },
        charRange(start, start + [...(slice.text ?? "")].length, total)),
      h("nav", { class: "pager" },
        start > 0 && link(Math.max(0, start - SLICE_CHARS), "← Previous 4,000"),
        slice.truncated && next > start && link(next, "Next 4,000 →")),
      h("pre", { class: "text", id: "slice-text" }, slice.text ?? ""));
  } catch (error) {
    if (!signal.aborted) replace(root, h("h1", {}, "Document"), h("p", {}, back), errorLine(error));
  }
}
