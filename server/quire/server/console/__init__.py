"""The Knowledge Base web console: built browser assets and the ASGI app that serves them."""
