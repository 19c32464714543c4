// Published pages: the namespaces, a namespace's last SyncReport, page search and read.

import { unary } from "../connect.js";
import { charRange, errorLine, h, int, replace, when } from "../dom.js";
import type { Namespace, PageRead, SearchHit, SyncReport } from "../types.js";

export async function namespacesView(root: HTMLElement, signal: AbortSignal): Promise<void> {
  const tbody = h("tbody");
  replace(root, h("h1", {}, "Published pages"),
    h("table", {}, h("thead", {}, h("tr", {}, ...["Namespace", "Pages", "Version", "Model", "Source", "Updated"].map((t) => h("th", {}, t)))), tbody));
  try {
    const { namespaces = [] } = await unary<{ namespaces?: Namespace[] }>("PagesService/ListNamespaces", {}, signal);
    if (namespaces.length === 0) tbody.append(h("tr", {}, h("td", { colspan: 6 }, "No namespace yet: sync one with `quire pages sync`.")));
    for (const n of namespaces) {
      tbody.append(h("tr", {},
        h("td", {}, h("a", { href: `#/pages/${encodeURIComponent(n.name ?? "")}` }, n.name ?? "")),
        h("td", {}, n.pageCount ?? 0), h("td", {}, int(n.filesystemVersion)),
        h("td", {}, n.embeddingModel ?? ""), h("td", {}, n.sourceUrl ?? ""), h("td", {}, when(n.updatedAt))));
    }
  } catch (error) {
    if (!signal.aborted) root.append(errorLine(error));
  }
}

export async function namespaceView(root: HTMLElement, namespace: string, path: string | null, offset: number, signal: AbortSignal): Promise<void> {
  const report = h("section", { class: "card", id: "sync-report" }, h("h2", {}, "Last sync"));
  const query = h("input", { name: "query", placeholder: "Search these pages", required: true, size: 40 });
  const results = h("div", { id: "page-results" });
  const form = h("form", { class: "inline", id: "page-search" }, query, h("button", { type: "submit" }, "Search"));
  const reader = h("section", { id: "page-read" });
  replace(root, h("h1", {}, namespace), h("p", {}, h("a", { href: "#/pages" }, "← namespaces")),
    h("div", { class: "cards" }, report, h("section", { class: "card wide" }, h("h2", {}, "Search"), form, results)), reader);

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const started = performance.now();
    unary<{ result?: { hits?: SearchHit[] } }>("PagesService/SearchPages", { namespace, query: query.value })
      .then(({ result }) => {
        const hits = result?.hits ?? [];
        replace(results, h("p", { class: "latency" }, `${hits.length} hits in ${(performance.now() - started).toFixed(0)} ms`),
          h("ol", { class: "hits" }, ...hits.map((hit) => h("li", { class: "hit" },
            h("a", { href: `#/pages/${encodeURIComponent(namespace)}?path=${encodeURIComponent(hit.path ?? "")}` }, hit.title || hit.path || ""),
            " ", h("span", { class: "score" }, `score ${(hit.score ?? 0).toFixed(4)}`),
            h("div", { class: "meta" }, [hit.path, ...(hit.headingPath ?? [])].join(" › ")),
            h("blockquote", {}, (hit.content ?? "").slice(0, 400))))));
      }, (error: unknown) => replace(results, errorLine(error)));
  });

  unary<{ report?: SyncReport }>("PagesService/GetSyncReport", { namespace }, signal).then(({ report: r = {} }) => {
    report.append(h("dl", {},
      h("dt", {}, "Status"), h("dd", {}, (r.status ?? "").replace("SYNC_STATUS_", "").toLowerCase() || "—"),
      h("dt", {}, "Discovered"), h("dd", {}, r.discovered ?? 0),
      h("dt", {}, "Updated / deleted / failed"), h("dd", {}, `${r.updated ?? 0} / ${r.deleted ?? 0} / ${r.failed ?? 0}`),
      h("dt", {}, "Chunks embedded"), h("dd", {}, r.embeddedChunks ?? 0),
      h("dt", {}, "Embedding model"), h("dd", {}, r.embeddingModel || "—"),
      h("dt", {}, "Finished"), h("dd", {}, when(r.finishedAt))),
      ...(r.errors ?? []).map((e) => h("p", { class: "error" }, e)));
  }, (error: unknown) => report.append(errorLine(error)));

  if (!path) return;
  try {
    const { pageRead } = await unary<{ pageRead: PageRead }>("PagesService/ReadPage", { namespace, path, offset: String(offset) }, signal);
    const next = int(pageRead.nextOffset);
    const start = int(pageRead.offset);
    const total = int(pageRead.totalChars);
    // The slice is [offset, next_offset) when more follows, else it runs to the end.
    const range = charRange(start, pageRead.truncated ? next : total, total);
    replace(reader, h("h2", {}, pageRead.page?.title || path),
      h("p", { class: "range" }, range,
        pageRead.truncated ? " · " : "",
        pageRead.truncated && h("a", { href: `#/pages/${encodeURIComponent(namespace)}?path=${encodeURIComponent(path)}&offset=${next}` }, "next slice →")),
      h("pre", { class: "text" }, pageRead.content ?? ""));
  } catch (error) {
    if (!signal.aborted) reader.append(errorLine(error));
  }
}
