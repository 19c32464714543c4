"""What page search and knowledge search share: rank fusion, the full-text query builders and
the per-request planner settings. Each search keeps its own arms next to its SQL
(pages/search.py, knowledge/search.py)."""
