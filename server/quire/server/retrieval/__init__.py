"""What page search and knowledge search share, named once: the hybrid knobs (tuning.py),
the BM25 formula (bm25.py), rank fusion (fusion.py), the full-text query builders
(lexical.py) and the per-request planner settings (search_config.py). Each search keeps its
own arms and statements next to its SQL (pages/search.py, knowledge/search.py)."""
