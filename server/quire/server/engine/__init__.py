"""The search engine: planner settings, arms, fusion."""
