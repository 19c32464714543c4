/**
 * Session consistency with read replicas (mirrors the Python client's `consistency.py` and the
 * Go client's `consistency.go`).
 *
 * A Quire server with read replicas answers every write with the response metadata
 * `quire-consistency-token` (the primary's WAL position after the write, e.g. `0/16B3748`), and
 * serves a read sent with such a token only from a database node that has caught up to it. The
 * client keeps the highest token any response carried and sends it with every read, so it reads
 * its own writes. A server without replicas sends no token; the client then sends none.
 */
import type { Transport } from "@connectrpc/connect";

import { isIdempotent } from "./policy.js";

export const CONSISTENCY_TOKEN_HEADER = "quire-consistency-token";

const TOKEN = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** A token's WAL position, to compare tokens; throws for anything that is not a token. */
export function tokenPosition(token: string): bigint {
  const match = TOKEN.exec(token.trim());
  if (match === null) throw new TypeError(`not a Quire consistency token: ${JSON.stringify(token.slice(0, 40))}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** The highest token one client has seen. `enabled: false` remembers and sends nothing. */
export class ConsistencyTokens {
  private token: string | undefined;
  private position = -1n;

  constructor(readonly enabled: boolean = true) {}

  /** The highest token seen (or taken over), undefined before any. */
  get current(): string | undefined {
    return this.token;
  }

  /** Takes `token` (e.g. handed over by another process) if it is past the current one. */
  advance(token: string): void {
    const position = tokenPosition(token);
    if (position > this.position) {
      this.position = position;
      this.token = token.trim();
    }
  }

  /** Takes the token a response's headers or trailers carry, if any. */
  observe(headers: Headers | undefined): void {
    this.observeToken(headers?.get(CONSISTENCY_TOKEN_HEADER) ?? "");
  }

  /**
   * Takes a token a message carried (WatchDocumentsResponse.consistencyToken); an empty one
   * (a server without replicas) is ignored.
   */
  observeToken(token: string): void {
    if (!this.enabled || token === "") return;
    try {
      this.advance(token);
    } catch {
      // A malformed token from the server must not fail the caller's call.
    }
  }

  /** `header` with the current token added, for a read. */
  withToken(header: HeadersInit | undefined): HeadersInit | undefined {
    if (!this.enabled || this.token === undefined) return header;
    const out = new Headers(header);
    out.set(CONSISTENCY_TOKEN_HEADER, this.token);
    return out;
  }
}

/**
 * `inner` with session consistency: reads (the idempotent RPCs) carry the highest token seen;
 * every response's token is kept — a unary call's when it returns, a stream's when it ends.
 */
export function withConsistency(inner: Transport, tokens: ConsistencyTokens): Transport {
  if (!tokens.enabled) return inner;
  // Typed by Transport's own generic signatures (contextual typing), not restated here.
  const unary: Transport["unary"] = async (method, signal, timeoutMs, header, input, contextValues) => {
    const sent = isIdempotent(method.name) ? tokens.withToken(header) : header;
    const response = await inner.unary(method, signal, timeoutMs, sent, input, contextValues);
    tokens.observe(response.trailer);
    tokens.observe(response.header);
    return response;
  };
  const stream: Transport["stream"] = async (method, signal, timeoutMs, header, input, contextValues) => {
    const response = await inner.stream(method, signal, timeoutMs, header, input, contextValues);
    const messages = response.message;
    async function* observed(): typeof messages {
      yield* messages;
      tokens.observe(response.trailer); // a sync's or an upload's writes, once it has ended
    }
    return { ...response, message: observed() };
  };
  return { unary, stream };
}

/** Request headers as accepted by `new Headers(init)`. */
type HeadersInit = ConstructorParameters<typeof Headers>[0];
