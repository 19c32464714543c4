// Connect JSON over fetch and XMLHttpRequest, the only wire code of the console.
//
// The console speaks the Connect protocol directly (docs/http.md) rather than bundling the
// TypeScript client: the client's transport is the Node one (@connectrpc/connect-node), and
// plain JSON keeps the bundle free of a protobuf runtime, so the first paint stays small.
// Unary calls are one POST of JSON; streams use Connect's envelopes (a flags byte and a
// big-endian length before each JSON message, flag 0x02 on the closing one that carries the
// error, if any). Uploads go through XMLHttpRequest because fetch reports no upload progress.

import { apiKey } from "./session.js";

const END_STREAM = 0x02;

/** A Connect error: `code` as Connect names it (`unauthenticated`, `not_found`, …). */
export class RpcError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

/** Called with every `unauthenticated` answer, so the page can ask for a key again. */
let onUnauthenticated: (error: RpcError) => void = () => undefined;

export function whenUnauthenticated(handler: (error: RpcError) => void): void {
  onUnauthenticated = handler;
}

function headers(contentType: string): Record<string, string> {
  return {
    "content-type": contentType,
    "connect-protocol-version": "1",
    authorization: `Bearer ${apiKey() ?? ""}`,
  };
}

function asError(value: unknown, status: number): RpcError {
  const body = (value ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof body.code === "string" ? body.code : `http_${status}`;
  const message = typeof body.message === "string" ? body.message : `HTTP status ${status}`;
  const error = new RpcError(code, message);
  if (code === "unauthenticated") onUnauthenticated(error);
  return error;
}

async function errorOf(response: Response): Promise<RpcError> {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // a proxy's HTML error page: the status alone says what happened
  }
  return asError(body, response.status);
}

/** One unary call: `method` is `Service/Method`, e.g. `KnowledgeService/ListCollections`. */
export async function unary<Res>(method: string, request: object, signal?: AbortSignal): Promise<Res> {
  let response: Response;
  try {
    response = await fetch(`/quire.v1.${method}`, {
      method: "POST",
      headers: headers("application/json"),
      body: JSON.stringify(request),
      signal: signal ?? null,
    });
  } catch (cause) {
    if (signal?.aborted) throw cause;
    throw new RpcError("unavailable", "the server cannot be reached");
  }
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as Res;
}

export function envelope(message: object): Uint8Array<ArrayBuffer> {
  const payload = new TextEncoder().encode(JSON.stringify(message));
  const framed = new Uint8Array(5 + payload.length);
  new DataView(framed.buffer).setUint32(1, payload.length);
  framed.set(payload, 5);
  return framed;
}

/** Splits a growing buffer into whole envelopes; the rest waits for more bytes. */
export class EnvelopeReader {
  private buffer = new Uint8Array(0);

  push(bytes: Uint8Array): Array<{ end: boolean; json: unknown }> {
    const joined = new Uint8Array(this.buffer.length + bytes.length);
    joined.set(this.buffer);
    joined.set(bytes, this.buffer.length);
    const frames: Array<{ end: boolean; json: unknown }> = [];
    let at = 0;
    while (joined.length - at >= 5) {
      const view = new DataView(joined.buffer, at);
      const size = view.getUint32(1);
      if (joined.length - at - 5 < size) break;
      const text = new TextDecoder().decode(joined.subarray(at + 5, at + 5 + size));
      frames.push({ end: (joined[at]! & END_STREAM) !== 0, json: JSON.parse(text) });
      at += 5 + size;
    }
    this.buffer = joined.slice(at);
    return frames;
  }
}

function endError(json: unknown): RpcError | null {
  const error = (json as { error?: unknown } | null)?.error;
  return error ? asError(error, 200) : null;
}

/** A server stream: `onMessage` gets each message as it arrives; resolves when the server
 * ends the stream, rejects with its error; `signal` stops it. */
export async function serverStream<Res>(
  method: string,
  request: object,
  onMessage: (message: Res) => void,
  signal: AbortSignal,
): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`/quire.v1.${method}`, {
      method: "POST",
      headers: headers("application/connect+json"),
      body: envelope(request),
      signal,
    });
  } catch (cause) {
    if (signal.aborted) throw cause;
    throw new RpcError("unavailable", "the server cannot be reached");
  }
  if (!response.ok || !response.body) throw await errorOf(response);
  const reader = response.body.getReader();
  const frames = new EnvelopeReader();
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (cause) {
      if (signal.aborted) throw cause;
      throw new RpcError("unavailable", "the connection to the server was lost");
    }
    if (chunk.done) throw new RpcError("unavailable", "the server closed the stream early");
    for (const frame of frames.push(chunk.value)) {
      if (frame.end) {
        const error = endError(frame.json);
        if (error) throw error;
        return;
      }
      onMessage(frame.json as Res);
    }
  }
}

export interface Upload<Res> {
  done: Promise<Res>;
  abort(): void;
}

/** A client stream sent as one body (all messages at once), with upload progress. */
export function clientStream<Res>(
  method: string,
  body: Blob,
  onProgress: (sent: number, total: number) => void,
): Upload<Res> {
  const xhr = new XMLHttpRequest();
  const done = new Promise<Res>((resolve, reject) => {
    xhr.open("POST", `/quire.v1.${method}`);
    for (const [name, value] of Object.entries(headers("application/connect+json"))) {
      xhr.setRequestHeader(name, value);
    }
    xhr.responseType = "arraybuffer";
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.total);
    xhr.onerror = () => reject(new RpcError("unavailable", "the upload was cut off: the server cannot be reached"));
    xhr.onabort = () => reject(new RpcError("canceled", "the upload was cancelled"));
    xhr.onload = () => {
      const bytes = new Uint8Array(xhr.response as ArrayBuffer);
      if (xhr.status !== 200) {
        let json: unknown = null;
        try {
          json = JSON.parse(new TextDecoder().decode(bytes));
        } catch {
          // not JSON: the status says it
        }
        reject(asError(json, xhr.status));
        return;
      }
      let message: Res | null = null;
      for (const frame of new EnvelopeReader().push(bytes)) {
        if (frame.end) {
          const error = endError(frame.json);
          if (error) return reject(error);
        } else {
          message = frame.json as Res;
        }
      }
      if (message === null) reject(new RpcError("unknown", "the server sent no answer"));
      else resolve(message);
    };
    xhr.send(body);
  });
  return { done, abort: () => xhr.abort() };
}
