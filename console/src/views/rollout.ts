// Retrieval rollout: the organisation's policy and the kill switch, the gate's last result
// (with a small bar chart), the shadow report, and a collection's index generations with
// rebuild and rollback, kept current by WatchIndexStatus.

import { serverStream, unary } from "../connect.js";
import { append, errorLine, h, int, replace, when } from "../dom.js";
import type { ApiKey, Collection, GateResult, IndexStatus, ModeMetrics, RetrievalPolicy, ShadowReport } from "../types.js";
import { modelOptions } from "./collections.js";

const MODES = ["RETRIEVAL_MODE_LEGACY_FTS", "RETRIEVAL_MODE_HYBRID_SHADOW", "RETRIEVAL_MODE_HYBRID"];
// As the server's start-up warning (server/quire/server/workers.py): six missed 5 s heartbeats.
const WORKER_ABSENT_MS = 30_000;
// `quire worker` runs this model's worker without options (server/quire/server/models.py).
const DEFAULT_MODEL = "all-minilm-l6-v2";
// What each text analysis does to the lexical arm, for the column's tooltip.
const ANALYSES: Record<string, string> = {
  english: "English stems, stop words dropped: \"pumping\" matches \"pumps\"",
  simple: "Each word as written, lower-cased; `quire index rebuild` moves to stems",
};
const analysisTitle = (analysis?: string) => ANALYSES[analysis ?? ""] ?? "";
const short = (mode?: string) => (mode ?? "UNSPECIFIED").replace("RETRIEVAL_MODE_", "");

export async function rolloutView(root: HTMLElement, collectionId: string | undefined, signal: AbortSignal): Promise<void> {
  const policy = h("section", { class: "card", id: "policy" }, h("h2", {}, "Policy"));
  const gate = h("section", { class: "card wide", id: "gate" }, h("h2", {}, "Gate"));
  const shadow = h("section", { class: "card", id: "shadow" }, h("h2", {}, "Shadow report"));
  const generations = h("section", { class: "card wide", id: "generations" }, h("h2", {}, "Index generations"));
  const keys = h("section", { class: "card wide", id: "api-keys" }, h("h2", {}, "API keys"));
  replace(root, h("h1", {}, "Retrieval rollout"), h("div", { class: "cards" }, policy, shadow, gate, generations, keys));
  void keysCard(keys, signal);
  void policyCard(policy, signal);
  void gateCard(gate, signal);
  void shadowCard(shadow, signal);
  await generationsCard(generations, collectionId, signal);
}

async function policyCard(card: HTMLElement, signal: AbortSignal): Promise<void> {
  const body = h("div");
  card.append(body);
  const show = (p: RetrievalPolicy) => {
    const select = h("select", { name: "mode" },
      h("option", { value: "" }, "deployment default"),
      ...MODES.map((m) => h("option", { value: m, selected: p.mode === m }, short(m))));
    const save = h("button", {}, "Set mode");
    save.addEventListener("click", () => {
      const request = select.value ? { mode: select.value } : { reset: true };
      unary<{ policy: RetrievalPolicy }>("AdminService/SetRetrievalPolicy", request).then((r) => show(r.policy), fail);
    });
    const kill = h("button", { class: p.killSwitchEngaged ? "" : "danger", id: "kill-switch" },
      p.killSwitchEngaged ? "Release kill switch" : "Engage kill switch");
    kill.addEventListener("click", () => {
      unary<{ policy: RetrievalPolicy }>("AdminService/SetKillSwitch", { engaged: !p.killSwitchEngaged }).then((r) => show(r.policy), fail);
    });
    replace(body,
      h("dl", {},
        h("dt", {}, "Effective mode"), h("dd", { id: "effective-mode" }, short(p.effectiveMode)),
        h("dt", {}, "Organisation setting"), h("dd", {}, p.mode ? short(p.mode) : "deployment default"),
        h("dt", {}, "Kill switch"), h("dd", {}, p.killSwitchEngaged ? "ENGAGED: every search is LEGACY_FTS" : "off"),
        h("dt", {}, "Search limit bound"), h("dd", {}, p.maxSearchLimit ?? "—")),
      h("div", { class: "inline" }, select, save), kill);
  };
  const fail = (error: unknown) => body.append(errorLine(error));
  unary<{ policy: RetrievalPolicy }>("AdminService/GetRetrievalPolicy", {}, signal).then((r) => show(r.policy), fail);
}

async function gateCard(card: HTMLElement, signal: AbortSignal): Promise<void> {
  try {
    const { result, currentFingerprint } = await unary<{ result?: GateResult; currentFingerprint?: string }>(
      "AdminService/GetGateStatus", {}, signal);
    if (!result?.metrics?.length) {
      card.append(h("p", {}, "No gate run yet (`quire gate run`)."));
      return;
    }
    const current = result.fingerprint === currentFingerprint;
    card.append(
      h("p", {}, h("span", { class: `badge ${result.passed ? "ready" : "failed"}` }, result.passed ? "passed" : "not passed"),
        ` ${result.dataset ?? ""}/${result.split ?? ""} · ${result.queries ?? 0} queries · ${result.documents ?? 0} documents`,
        current ? "" : " · measured on another index fingerprint: run the gate again"),
      chart(result.metrics),
      h("table", {}, h("thead", {}, h("tr", {}, ...["Mode", "nDCG@10", "Recall@10", "Recall@100", "MRR@10"].map((t) => h("th", {}, t)))),
        h("tbody", {}, ...result.metrics.map((m) => h("tr", {}, h("td", {}, m.label || short(m.mode)),
          ...[m.ndcgAt10, m.recallAt10, m.recallAt100, m.mrrAt10].map((v) => h("td", {}, (v ?? 0).toFixed(3))))))));
  } catch (error) {
    if (!signal.aborted) card.append(errorLine(error));
  }
}

/** Horizontal bars of nDCG@10 and Recall@10 per mode, drawn as inline SVG (no chart library). */
function chart(metrics: ModeMetrics[]): SVGSVGElement {
  const ns = "http://www.w3.org/2000/svg";
  const el = <K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const rowHeight = 16;
  const series: Array<[string, (m: ModeMetrics) => number, string]> = [
    ["nDCG@10", (m) => m.ndcgAt10 ?? 0, "bar-a"],
    ["Recall@10", (m) => m.recallAt10 ?? 0, "bar-b"],
  ];
  const height = metrics.length * series.length * rowHeight + 8;
  const svg = el("svg", { viewBox: `0 0 360 ${height}`, width: 360, height, class: "chart", role: "img", "aria-label": "gate metrics per mode" });
  let y = 4;
  for (const m of metrics) {
    for (const [name, value, css] of series) {
      const v = value(m);
      svg.append(el("text", { x: 0, y: y + 11, class: "chart-label" }, `${m.label || short(m.mode)} ${name}`));
      svg.append(el("rect", { x: 170, y: y + 2, width: Math.max(1, v * 150), height: rowHeight - 5, class: css }));
      svg.append(el("text", { x: 175 + v * 150, y: y + 11, class: "chart-label" }, v.toFixed(3)));
      y += rowHeight;
    }
  }
  return svg;
}

async function shadowCard(card: HTMLElement, signal: AbortSignal): Promise<void> {
  try {
    const { report = {} } = await unary<{ report?: ShadowReport }>("AdminService/GetShadowReport", {}, signal);
    const ms = (v?: number) => `${(v ?? 0).toFixed(1)} ms`;
    card.append(h("dl", {},
      h("dt", {}, "Samples"), h("dd", {}, int(report.samples)),
      h("dt", {}, "Mean overlap@k"), h("dd", {}, (report.meanOverlapAtK ?? 0).toFixed(3)),
      h("dt", {}, "Top-1 agreement"), h("dd", {}, (report.top1Agreement ?? 0).toFixed(3)),
      h("dt", {}, "Legacy p50 / p95"), h("dd", {}, `${ms(report.legacyP50Ms)} / ${ms(report.legacyP95Ms)}`),
      h("dt", {}, "Hybrid p50 / p95"), h("dd", {}, `${ms(report.hybridP50Ms)} / ${ms(report.hybridP95Ms)}`),
      h("dt", {}, "Shadow failures"), h("dd", {}, int(report.shadowFailures)),
      h("dt", {}, "Since"), h("dd", {}, when(report.since))));
  } catch (error) {
    if (!signal.aborted) card.append(errorLine(error));
  }
}

async function generationsCard(card: HTMLElement, collectionId: string | undefined, signal: AbortSignal): Promise<void> {
  const select = h("select", { name: "collection", id: "generation-collection" }, h("option", { value: "" }, "choose a collection"));
  const body = h("div");
  const message = h("div");
  const controls = h("div", { class: "inline" });
  card.append(select, message, controls, body);
  try {
    const { collections = [] } = await unary<{ collections?: Collection[] }>("KnowledgeService/ListCollections", {}, signal);
    for (const c of collections) select.append(h("option", { value: c.collectionId, selected: c.collectionId === collectionId }, c.name ?? c.collectionId));
  } catch (error) {
    message.append(errorLine(error));
  }
  select.addEventListener("change", () => { location.hash = `#/rollout/${select.value}`; });
  if (!collectionId) return;

  // Made once, not per status message: the chosen model stays chosen while the status moves.
  // A rebuild onto another model serves it once built; a rollback goes back (docs/embedding.md).
  const model = h("select", { name: "model", id: "rebuild-model", title: "Embedding model of the new generation" },
    h("option", { value: "" }, "same model"));
  modelOptions(signal).then((options) => model.append(...options)).catch(() => {});
  const rebuild = h("button", { id: "rebuild" }, "Rebuild");
  rebuild.addEventListener("click", () => act("AdminService/RebuildIndex", model.value ? { embeddingModel: model.value } : {}));
  const rollback = h("button", { id: "rollback", class: "danger" }, "Roll back");
  rollback.addEventListener("click", () => act("AdminService/RollbackIndex"));
  replace(controls, model, rebuild, rollback);

  const show = (s: IndexStatus) => {
    replace(body,
      h("p", {}, "Serving generation ", h("strong", { id: "serving-generation" }, int(s.servingGeneration) || "—"),
        int(s.buildingGeneration) ? ` · building ${int(s.buildingGeneration)}` : "",
        " · embedded with ", h("strong", { id: "serving-model" }, s.embeddingModel ?? "")),
      workerAbsence(s.workerLastSeen, s.embeddingModel),
      h("table", {}, h("thead", {}, h("tr", {}, ...["Generation", "State", "Indexed", "Model", "Text analysis", "Index version", "Ready at", "Error"].map((t) => h("th", {}, t)))),
        h("tbody", {}, ...(s.generations ?? []).map((g) => h("tr", { "data-generation": int(g.generation), class: int(g.generation) === int(s.servingGeneration) ? "serving" : "" },
          h("td", {}, int(g.generation)),
          h("td", {}, (g.state ?? "").replace("GENERATION_STATE_", "").toLowerCase()),
          h("td", {}, `${g.documentsIndexed ?? 0} / ${g.documentsTotal ?? 0}`),
          h("td", { class: "model" }, g.embeddingModel ?? ""),
          h("td", { class: "text-analysis", title: analysisTitle(g.textAnalysis) }, g.textAnalysis ?? ""),
          h("td", {}, g.indexVersion ?? ""),
          h("td", {}, g.readyAt ? when(g.readyAt) : ""),
          h("td", {}, g.error ?? ""))))));
  };
  const act = (method: string, extra: Record<string, string> = {}) => {
    replace(message);
    unary<{ status: IndexStatus }>(method, { collectionId, ...extra }).then((r) => show(r.status),
      (error: unknown) => replace(message, errorLine(error)));
  };
  try {
    await serverStream<{ status: IndexStatus }>("KnowledgeService/WatchIndexStatus", { collectionId }, (m) => show(m.status), signal);
  } catch (error) {
    if (!signal.aborted) message.append(errorLine(error));
  }
}

/** A warning when no indexer worker for the collection's model has shown a heartbeat lately
 * (the server reads the heartbeats of that model's workers): uploads then stay pending. */
function workerAbsence(lastSeen: string | undefined, model: string | undefined): HTMLElement | string {
  const seen = lastSeen ? new Date(lastSeen).getTime() : NaN;
  if (Date.now() - seen <= WORKER_ABSENT_MS) return "";
  const of = model ? ` for ${model}` : "";
  const command = model && model !== DEFAULT_MODEL ? `quire worker --models ${model}` : "quire worker";
  return h("p", { id: "worker-absent", class: "warn" },
    lastSeen ? `No indexing worker${of} seen since ` : `No indexing worker${of} has run yet`,
    lastSeen ? when(lastSeen) : "",
    ": uploads stay pending until one runs (",
    h("code", {}, command),
    ").");
}

/** The organisation's live keys (ListApiKeys, scope admin): never a secret, none is stored. */
async function keysCard(card: HTMLElement, signal: AbortSignal): Promise<void> {
  try {
    const { keys = [], truncated } = await unary<{ keys?: ApiKey[]; truncated?: boolean }>("AdminService/ListApiKeys", {}, signal);
    append(card,
      h("table", {}, h("thead", {}, h("tr", {}, ...["Key id", "Name", "Scopes", "Created", "Last used"].map((t) => h("th", {}, t)))),
        h("tbody", {}, ...keys.map((k) => h("tr", { "data-key": k.keyId ?? "" },
          h("td", {}, h("code", {}, k.keyId ?? "")),
          h("td", {}, k.name ?? ""),
          h("td", {}, (k.scopes ?? []).map((s) => s.replace("SCOPE_", "").toLowerCase()).join(", ")),
          h("td", {}, when(k.createdAt)),
          h("td", {}, k.lastUsedAt ? when(k.lastUsedAt) : "never"))))),
      truncated ? h("p", {}, "Only the newest 1,000 keys are listed.") : null,
      h("p", { class: "meta" }, "Create and revoke keys with `quire keys create` and `quire keys revoke`."));
  } catch (error) {
    if (!signal.aborted) card.append(errorLine(error));
  }
}
