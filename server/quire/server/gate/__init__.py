"""The FTS baseline gate: judged data sets, retrieval metrics, and the gate run itself."""
