/**
 * The call policy as an interceptor of the client's transport: every quire.v1 call gets its
 * kind's deadline, and idempotent unary reads are retried on UNAVAILABLE (mirrors the Python
 * client's `_aio_interceptors` and the Go client's `policyInterceptor`).
 *
 * It wraps the whole `Transport` rather than being a Connect `Interceptor`, for two reasons: a
 * Connect interceptor runs inside the deadline Connect already set from the call's `timeoutMs`
 * (so it could neither apply a default nor give each attempt the remaining budget), and the
 * client must apply the policy to a ready transport passed in `QuireClientOptions.transport`
 * too. The policy itself (kinds, defaults, backoff) is `policy.ts`.
 */
import type { DescMessage, DescMethod, DescMethodStreaming, DescMethodUnary, MessageInitShape } from "@bufbuild/protobuf";
import { type ContextValues, ConnectError, type StreamResponse, type Transport, type UnaryResponse } from "@connectrpc/connect";

import { fromConnectError } from "./errors.js";
import {
  backoffDelayMs,
  type CallKind,
  isIdempotent,
  isRetryable,
  resolveTimeoutMs,
  type RetryPolicy,
  RPC_KINDS,
  type Timeouts,
} from "./policy.js";

/** The package every RPC of the contract lives in. */
const CONTRACT_PACKAGE = "quire.v1.";

/** The call kind of a quire.v1 method, or undefined for other services (health, reflection). */
function kindOf(method: DescMethod): CallKind | undefined {
  if (!method.parent.typeName.startsWith(CONTRACT_PACKAGE)) return undefined;
  return RPC_KINDS[method.name];
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * `inner` with the call policy applied. A call's `timeoutMs` reaches it as given by the caller:
 * undefined means the kind's default, Infinity none. For retried reads the deadline covers
 * every attempt, and the wait before a retry never passes it.
 */
export function withCallPolicy(inner: Transport, timeouts: Timeouts, retry: RetryPolicy): Transport {
  return {
    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: MessageInitShape<I>,
      contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      const kind = kindOf(method);
      if (kind === undefined) return inner.unary(method, signal, timeoutMs, header, input, contextValues);
      const budget = resolveTimeoutMs(timeoutMs, kind, timeouts);
      const deadline = budget === undefined ? undefined : Date.now() + budget;
      const attempts = isIdempotent(method.name) ? Math.max(1, retry.maxAttempts) : 1;
      for (let attempt = 1; ; attempt++) {
        const remaining = deadline === undefined ? undefined : Math.max(1, deadline - Date.now());
        try {
          return await inner.unary(method, signal, remaining, header, input, contextValues);
        } catch (err) {
          if (!(err instanceof ConnectError)) throw err;
          const error = fromConnectError(err);
          if (attempt >= attempts || !isRetryable(error)) throw err;
          const delay = backoffDelayMs(retry, attempt, error.retryAfterMs);
          if (deadline !== undefined && Date.now() + delay >= deadline) throw err;
          await sleep(delay, signal);
        }
      }
    },

    stream<I extends DescMessage, O extends DescMessage>(
      method: DescMethodStreaming<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: AsyncIterable<MessageInitShape<I>>,
      contextValues?: ContextValues,
    ): Promise<StreamResponse<I, O>> {
      const kind = kindOf(method);
      const timeout = kind === undefined ? timeoutMs : resolveTimeoutMs(timeoutMs, kind, timeouts);
      return inner.stream(method, signal, timeout, header, input, contextValues);
    },
  };
}

/** Request headers as accepted by `new Headers(init)`. */
type HeadersInit = ConstructorParameters<typeof Headers>[0];
