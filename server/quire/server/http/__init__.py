"""The HTTP listener: every RPC over the Connect protocol, plus mounted ASGI apps (listener.py)."""
