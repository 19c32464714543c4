"""gRPC servicers: thin adapters from requests to the engine and storage."""
