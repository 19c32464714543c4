# Quire server image. Build: docker build -t quire .
# Run against an external PostgreSQL (>= 15 with pgvector >= 0.8):
#   docker run -e QUIRE_DATABASE_URL=postgresql://... -p 50051:50051 -p 8080:8080 quire
# (8080: every RPC over HTTP/JSON with the Connect protocol, docs/http.md)
FROM python:3.11-slim AS build
WORKDIR /src
RUN python -m venv /opt/quire
COPY clients/python /src/clients/python
COPY pyproject.toml README.md /src/
COPY server /src/server
COPY indexer /src/indexer
RUN /opt/quire/bin/pip install --no-cache-dir ./clients/python . \
 && QUIRE_HOME=/opt/quire-home /opt/quire/bin/quire model prepare

FROM python:3.11-slim
RUN useradd --system --uid 10001 --home-dir /var/lib/quire --create-home quire
COPY --from=build /opt/quire /opt/quire
COPY --from=build --chown=quire:quire /opt/quire-home /var/lib/quire
ENV PATH=/opt/quire/bin:$PATH \
    QUIRE_HOME=/var/lib/quire \
    QUIRE_ADDRESS=0.0.0.0:50051 \
    QUIRE_HTTP_ADDRESS=0.0.0.0:8080
USER quire
EXPOSE 50051 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD python -c "import grpc, sys; from grpc_health.v1 import health_pb2 as h, health_pb2_grpc as g; c = grpc.insecure_channel('127.0.0.1:50051'); sys.exit(0 if g.HealthStub(c).Check(h.HealthCheckRequest(), timeout=2).status == h.HealthCheckResponse.SERVING else 1)"
# QUIRE_DATABASE_URL must be set: the image does not run the embedded PostgreSQL.
ENTRYPOINT ["quire"]
CMD ["serve"]
