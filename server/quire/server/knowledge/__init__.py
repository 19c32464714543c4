"""Knowledge collections: documents, agents, the collections a call reaches, retrieval modes,
cache and shadow runs."""
