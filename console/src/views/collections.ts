// Collections: the list, and one collection's documents with live status (WatchDocuments),
// drag-and-drop upload with per-file progress, replace and delete.

import { RpcError, serverStream, unary } from "../connect.js";
import { bytes, errorLine, h, int, replace } from "../dom.js";
import type { Collection, Document, EmbeddingModel } from "../types.js";
import { tooLarge, upload } from "../upload.js";

/** One option per model the server knows, only loaded ones choosable; `defaultValue`: the
 * value of the default model's option (the create form sends "" for it). */
export async function modelOptions(signal: AbortSignal, defaultValue?: string): Promise<HTMLOptionElement[]> {
  const { models = [] } = await unary<{ models?: EmbeddingModel[] }>("KnowledgeService/ListModels", {}, signal);
  return models.map((m) => {
    const label = `${m.name}${m.isDefault ? " (default)" : ""}${m.loaded ? "" : " (not loaded)"}`;
    const value = m.isDefault && defaultValue !== undefined ? defaultValue : m.name;
    return h("option", { value, disabled: !m.loaded, title: m.summary ?? "" }, label);
  });
}

/** The model picker of the create form (a collection changes model only by a rebuild, on the
 * rollout page: docs/embedding.md). */
async function modelPicker(signal: AbortSignal): Promise<HTMLSelectElement> {
  const picker = h("select", { name: "model", id: "collection-model", title: "Embedding model" });
  picker.append(...(await modelOptions(signal, "")));
  picker.value = "";
  return picker;
}

export async function collectionsView(root: HTMLElement, signal: AbortSignal): Promise<void> {
  const list = h("tbody");
  const message = h("div");
  const name = h("input", { name: "name", placeholder: "New collection name", required: true, maxlength: 200 });
  const models = h("span");
  let model: HTMLSelectElement | null = null;
  const form = h(
    "form",
    { class: "inline", id: "create-collection" },
    name,
    models,
    h("button", { type: "submit" }, "Create collection"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = model?.value ? { embeddingModel: model.value } : {};
    unary<{ collection: Collection }>("KnowledgeService/CreateCollection", { name: name.value, ...chosen })
      .then(({ collection }) => {
        location.hash = `#/collections/${collection.collectionId}`;
      })
      .catch((error: unknown) => replace(message, errorLine(error)));
  });
  const columns = ["Name", "Documents", "Serving generation", "Model"];
  replace(
    root,
    h("h1", {}, "Collections"),
    form,
    message,
    h("table", { id: "collections" }, h("thead", {}, h("tr", {}, ...columns.map((c) => h("th", {}, c)))), list),
  );
  modelPicker(signal)
    .then((picker) => {
      model = picker;
      replace(models, picker);
    })
    .catch(() => {}); // without the list, the server's default model is used
  try {
    const { collections = [] } = await unary<{ collections?: Collection[] }>(
      "KnowledgeService/ListCollections", {}, signal);
    if (collections.length === 0) list.append(h("tr", {}, h("td", { colspan: columns.length }, "No collections yet.")));
    for (const c of collections) {
      list.append(
        h("tr", { "data-collection": c.name ?? c.collectionId },
          h("td", {}, h("a", { href: `#/collections/${c.collectionId}` }, c.name ?? c.collectionId)),
          h("td", {}, int(c.documentCount)),
          h("td", {}, int(c.servingGeneration) || "—"),
          h("td", { class: "model" }, c.embeddingModel ?? "")),
      );
    }
  } catch (error) {
    if (!signal.aborted) replace(message, errorLine(error));
  }
}

const STATUS_LABEL: Record<string, string> = {
  DOCUMENT_STATUS_PENDING: "pending",
  DOCUMENT_STATUS_PROCESSING: "processing",
  DOCUMENT_STATUS_READY: "ready",
  DOCUMENT_STATUS_FAILED: "failed",
};
const NO_TEXT = "no text extracted";

function statusCell(doc: Document): HTMLElement {
  const status = STATUS_LABEL[doc.status ?? ""] ?? "unknown";
  const noText = status === "ready" && doc.extractError === NO_TEXT;
  const cell = h("td", { class: "status" },
    h("span", { class: `badge ${noText ? "no-text" : status}` }, noText ? "ready · no text" : status));
  if (status === "failed" && doc.extractError) cell.append(h("div", { class: "reason" }, doc.extractError));
  cell.dataset.status = status;
  if (noText) cell.dataset.noText = "true";
  // When this state reached the page (ms since the epoch): the browser tests compare it with
  // the document's updatedAt to measure how long a status change takes to show.
  cell.dataset.seenAt = String(Date.now());
  return cell;
}

export async function collectionView(root: HTMLElement, collectionId: string, signal: AbortSignal): Promise<void> {
  const title = h("h1", {}, "Collection");
  const message = h("div");
  const rows = new Map<string, HTMLTableRowElement>();
  const tbody = h("tbody");
  const uploads = h("ul", { class: "uploads", id: "uploads" });
  const live = h("span", { class: "live", id: "live" }, "connecting…");
  const picker = h("input", { type: "file", multiple: true, id: "file-input" });
  const drop = h("div", { class: "drop", id: "drop-zone", tabindex: 0 },
    "Drop files here to upload, or ", h("label", { for: "file-input", class: "link" }, "choose files"), picker);

  const send = (files: Iterable<File>, documentId?: string) => {
    for (const file of files) void uploadOne(file, collectionId, uploads, documentId);
  };
  picker.addEventListener("change", () => {
    send(picker.files ?? []);
    picker.value = "";
  });
  drop.addEventListener("dragover", (event) => {
    event.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    send(event.dataTransfer?.files ?? []);
  });

  const row = (doc: Document): HTMLTableRowElement => {
    const replacePicker = h("input", { type: "file", class: "hidden" });
    replacePicker.addEventListener("change", () => send(replacePicker.files ?? [], doc.documentId));
    const remove = h("button", { class: "danger" }, "Delete");
    remove.addEventListener("click", () => {
      if (remove.dataset.armed !== "true") {
        remove.dataset.armed = "true";
        remove.textContent = "Confirm delete";
        return;
      }
      unary("KnowledgeService/DeleteDocument", { documentId: doc.documentId }).catch((error: unknown) =>
        replace(message, errorLine(error)));
    });
    const tr = h("tr", { "data-document": doc.fileName ?? doc.documentId },
      h("td", {}, h("a", { href: `#/documents/${collectionId}/${doc.documentId}` }, doc.fileName ?? doc.documentId)),
      statusCell(doc),
      h("td", {}, bytes(int(doc.sizeBytes))),
      h("td", {}, int(doc.textLength).toLocaleString()),
      h("td", { class: "actions" },
        h("button", { onclick: () => replacePicker.click() }, "Replace"), replacePicker, remove));
    return tr;
  };

  const apply = (doc: Document) => {
    const existing = rows.get(doc.documentId);
    if (doc.status === "DOCUMENT_STATUS_DELETED") {
      existing?.remove();
      rows.delete(doc.documentId);
      return;
    }
    const fresh = row(doc);
    if (existing) existing.replaceWith(fresh);
    else tbody.prepend(fresh);
    rows.set(doc.documentId, fresh);
  };

  const model = h("span", { class: "meta", id: "collection-embedding" });
  replace(root,
    title,
    h("p", {}, h("a", { href: "#/collections" }, "← all collections"), " · ", live,
      " · ", h("a", { href: `#/rollout/${collectionId}` }, "index generations"), " · ", model),
    message,
    drop,
    uploads,
    h("table", { id: "documents" },
      h("thead", {}, h("tr", {}, h("th", {}, "File"), h("th", {}, "Status"), h("th", {}, "Size"), h("th", {}, "Characters"), h("th", {}, ""))),
      tbody));

  unary<{ collection: Collection }>("KnowledgeService/GetCollection", { collectionId }, signal)
    .then(({ collection }) => {
      title.textContent = collection.name ?? collectionId;
      model.textContent = `embedded with ${collection.embeddingModel ?? "the default model"}`;
    })
    .catch(() => undefined);  // the watch below reports a missing collection

  // The stream stays open while the page shows the collection: every status change the
  // server emits arrives here as it happens, with no polling. It reconnects after a drop.
  for (let attempt = 0; !signal.aborted; attempt++) {
    try {
      live.textContent = "live";
      live.className = "live on";
      await serverStream<{ document: Document }>("KnowledgeService/WatchDocuments", { collectionId },
        (m) => { attempt = 0; apply(m.document); }, signal);
    } catch (error) {
      if (signal.aborted) return;
      live.textContent = "disconnected";
      live.className = "live off";
      if (error instanceof RpcError && error.code !== "unavailable") {
        replace(message, errorLine(error));
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 250 * 2 ** attempt)));
  }
}

async function uploadOne(file: File, collectionId: string, list: HTMLElement, documentId?: string): Promise<void> {
  const bar = h("progress", { max: 1, value: 0 });
  const state = h("span", { class: "state" }, "reading…");
  const item = h("li", { "data-upload": file.name }, h("strong", {}, file.name), " ", bytes(file.size), " ", bar, " ", state);
  list.prepend(item);
  const refused = tooLarge(file);
  if (refused) {
    bar.remove();
    state.replaceWith(h("span", { class: "error", role: "alert" }, refused));
    item.dataset.result = "refused";
    return;
  }
  try {
    const sending = await upload(file, collectionId, (fraction) => {
      bar.value = fraction;
      state.textContent = `${Math.round(fraction * 100)}%`;
    }, documentId);
    await sending.done;
    bar.value = 1;
    state.textContent = documentId ? "replaced" : "uploaded";
    item.dataset.result = "uploaded";
  } catch (error) {
    state.replaceWith(errorLine(error));
    item.dataset.result = "failed";
  }
}
