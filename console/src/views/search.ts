// The search playground: one query, LEGACY_FTS and HYBRID side by side, with scores,
// snippets, chunk fields and each call's latency as the browser measured it.

import { unary } from "../connect.js";
import { errorLine, h, highlighted, int, replace } from "../dom.js";
import type { Collection, KnowledgeHit, SearchKnowledgeResponse, WhoAmIResponse } from "../types.js";

const MODES = ["RETRIEVAL_MODE_LEGACY_FTS", "RETRIEVAL_MODE_HYBRID"] as const;

export async function searchView(root: HTMLElement, signal: AbortSignal): Promise<void> {
  const query = h("input", { name: "query", placeholder: "Query", required: true, maxlength: 500, size: 50 });
  // The box's range is the caller's own bound (WhoAmI: the organisation's max_search_limit),
  // not the contract's 50: above it the server refuses the search.
  const limit = h("input", { name: "limit", type: "number", min: 1, max: 8, value: 8 });
  const bound = h("span", { class: "meta", id: "limit-bound" }, "");
  const agent = h("input", { name: "agent", placeholder: "Agent id (or tick collections)", maxlength: 128 });
  const boxes = h("fieldset", { class: "collections" }, h("legend", {}, "Collections"));
  const columns = h("div", { class: "columns", id: "search-results" });
  const form = h("form", { id: "search-form" }, h("div", { class: "inline" }, query, limit,
    h("button", { type: "submit" }, "Search both modes")), bound, agent, boxes);
  replace(root, h("h1", {}, "Search playground"), form, columns);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const collectionIds = [...boxes.querySelectorAll<HTMLInputElement>("input:checked")].map((b) => b.value);
    const request = {
      query: query.value,
      limit: Number(limit.value) || 8,
      ...(agent.value ? { agentId: agent.value } : { collectionIds }),
    };
    replace(columns, ...MODES.map((mode) => column(mode, request, names)));
  });
  const names = new Map<string, string>();
  unary<WhoAmIResponse>("AdminService/WhoAmI", {}, signal).then((me) => {
    const most = me.policy?.maxSearchLimit ?? 8;
    limit.max = String(most);
    limit.value = String(Math.min(8, most));
    replace(bound, `Limit 1–${most}: your organisation's bound (an admin raises it, up to 50, with \`quire policy set --max-search-limit N\`).`);
  }, () => undefined); // a key without scope read cannot search either; its error shows there

  try {
    const { collections = [] } = await unary<{ collections?: Collection[] }>(
      "KnowledgeService/ListCollections", {}, signal);
    for (const c of collections) {
      names.set(c.collectionId, c.name ?? c.collectionId);
      boxes.append(h("label", {}, h("input", { type: "checkbox", value: c.collectionId, checked: true }), ` ${c.name ?? c.collectionId}`));
    }
  } catch (error) {
    boxes.append(errorLine(error));
  }
}

function column(mode: string, request: object, names: Map<string, string>): HTMLElement {
  const label = mode.replace("RETRIEVAL_MODE_", "");
  const body = h("div", {}, "Searching…");
  const section = h("section", { class: "mode", "data-mode": label }, h("h2", {}, label), body);
  const started = performance.now();
  unary<SearchKnowledgeResponse>("KnowledgeService/SearchKnowledge", { ...request, mode })
    .then((response) => {
      const ms = performance.now() - started;
      const hits = response.hits ?? [];
      replace(body,
        h("p", { class: "latency" }, `${hits.length} hits in ${ms.toFixed(0)} ms`,
          response.cached ? " (cached)" : "", ` · served as ${(response.mode ?? "").replace("RETRIEVAL_MODE_", "")}`),
        h("ol", { class: "hits" }, ...hits.map((found) => hit(found, names))));
      section.dataset.done = "true";
    })
    .catch((error: unknown) => {
      replace(body, errorLine(error));
      section.dataset.done = "true";
    });
  return section;
}

function hit(found: KnowledgeHit, names: Map<string, string>): HTMLElement {
  const chunk = found.chunkId
    ? `chunk ${found.chunkOrdinal ?? 0}${found.headingPath?.length ? ` · ${found.headingPath.join(" › ")}` : ""}`
    : "whole document";
  return h("li", { class: "hit" },
    h("div", {}, h("strong", {}, found.fileName ?? found.documentId ?? ""), " ",
      // One file in two collections is two hits: the collection tells them apart.
      h("span", { class: "collection" }, `in ${names.get(found.collectionId ?? "") ?? found.collectionId ?? ""}`), " ",
      h("span", { class: "score" }, `score ${(found.score ?? 0).toFixed(4)}`)),
    h("div", { class: "meta" }, `${chunk} · generation ${int(found.indexGeneration) || "—"} · ${(found.indexState ?? "").replace("HIT_INDEX_STATE_", "").toLowerCase()}`),
    highlighted(found.snippet ?? ""));
}
