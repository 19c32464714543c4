/**
 * The transport under `QuireClient`: gRPC against the gRPC port (the default), or the Connect
 * protocol with JSON bodies against the server's HTTP port (`quire serve --http-address`).
 *
 * Both carry the same calls, deadlines (`grpc-timeout` / `connect-timeout-ms`) and errors (the
 * `quire.v1.ErrorDetail` arrives in the status details either way), so everything above the
 * transport is shared. Connect defaults to HTTP/2 — cleartext h2c for `http://` — because
 * `SyncPages` is a bidirectional stream and needs it; over HTTP/1.1 every other RPC works and
 * `SyncPages` fails with `Code.Unimplemented`.
 */
import type * as http2 from "node:http2";

import type { Interceptor, Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";

/** `"grpc"` (gRPC over HTTP/2) or `"connect"` (the Connect protocol, JSON bodies). */
export type WireProtocol = "grpc" | "connect";

/** Where `quire up` serves each protocol by default. */
export const DEFAULT_BASE_URLS: Record<WireProtocol, string> = {
  grpc: "http://127.0.0.1:50051",
  connect: "http://127.0.0.1:8080",
};

export interface TransportOptions {
  /** `http://host:port` (plaintext, h2c for HTTP/2) or `https://host:port`. */
  baseUrl: string;
  /** Default `"grpc"`. */
  protocol?: WireProtocol | undefined;
  /** Connect only: `"2"` (default) or `"1.1"` (no `SyncPages`). gRPC is always HTTP/2. */
  httpVersion?: "1.1" | "2" | undefined;
  /** Connect only: protobuf binary bodies instead of JSON (default false). */
  useBinaryFormat?: boolean | undefined;
  interceptors?: Interceptor[] | undefined;
  /** Options for `http2.connect` (e.g. `ca`, `cert`, `key` for a private CA or mTLS). */
  nodeOptions?: http2.ClientSessionOptions | http2.SecureClientSessionOptions | undefined;
}

export interface OpenedTransport {
  transport: Transport;
  /** The HTTP/2 connection, to close; undefined over HTTP/1.1. */
  sessionManager: Http2SessionManager | undefined;
}

/** A transport for `options.protocol`; close it with `sessionManager?.abort()`. */
export function openTransport(options: TransportOptions): OpenedTransport {
  const { baseUrl } = options;
  const interceptors = options.interceptors ?? [];
  const protocol = options.protocol ?? "grpc";
  if (protocol === "connect" && options.httpVersion === "1.1") {
    const transport = createConnectTransport({
      baseUrl,
      httpVersion: "1.1",
      interceptors,
      useBinaryFormat: options.useBinaryFormat ?? false,
    });
    return { transport, sessionManager: undefined };
  }
  // Idle connections are pinged every 60 s, which the server accepts (app.py).
  const sessionManager = new Http2SessionManager(baseUrl, { pingIntervalMs: 60_000 }, options.nodeOptions);
  const transport =
    protocol === "grpc"
      ? createGrpcTransport({ baseUrl, sessionManager, interceptors })
      : createConnectTransport({
          baseUrl,
          httpVersion: "2",
          sessionManager,
          interceptors,
          useBinaryFormat: options.useBinaryFormat ?? false,
        });
  return { transport, sessionManager };
}
