"""Human-readable forms of a gate run: a Markdown table and a JSON summary."""

from __future__ import annotations

from typing import Any

from quire.server.gate.runner import GateRun


def markdown_table(run: GateRun) -> str:
    rows = [
        "| mode | nDCG@10 | Recall@10 | Recall@100 | MRR@10 |",
        "|---|---|---|---|---|",
    ]
    for m in run.result.metrics:
        rows.append(
            f"| {m.label} | {m.ndcg_at_10:.4f} | {m.recall_at_10:.4f} | "
            f"{m.recall_at_100:.4f} | {m.mrr_at_10:.4f} |"
        )
    verdict = "PASSED" if run.result.passed else "FAILED"
    rows.append("")
    rows.append(
        f"Gate {verdict} on {run.result.dataset}/{run.result.split} "
        f"({run.result.documents} documents, {run.result.queries} queries), "
        f"fingerprint {run.result.fingerprint}."
    )
    return "\n".join(rows)


def summary(run: GateRun) -> dict[str, Any]:
    return {
        "dataset": run.result.dataset,
        "split": run.result.split,
        "documents": run.result.documents,
        "queries": run.result.queries,
        "fingerprint": run.result.fingerprint,
        "passed": run.result.passed,
        "metrics": {mode: scores.as_dict() for mode, scores in run.scores.items()},
        "ingest_seconds": round(run.ingest_seconds, 2),
        "ingest_documents_per_second": round(run.documents_per_second, 1),
        "query_seconds": round(run.query_seconds, 2),
    }
