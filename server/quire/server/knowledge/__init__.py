"""Knowledge collections: documents, agents, scope, retrieval modes, cache and shadow runs."""
