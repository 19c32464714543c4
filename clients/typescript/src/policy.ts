/**
 * Call kinds, default deadlines and the retry policy (mirrors `quire.client.policy`).
 *
 * Every RPC of the contract has one `CallKind` (its `(quire.v1.call)` option); the kind picks
 * the default deadline. Only the unary RPCs the contract marks `idempotency_level =
 * NO_SIDE_EFFECTS` (or `IDEMPOTENT`) are retried, only on UNAVAILABLE, never writes or streams.
 * `CallKind`, `RPC_KINDS` and the retried RPCs are generated into contract.gen.ts.
 */
import { Code } from "@connectrpc/connect";

import { type CallKind, DEFAULT_DEADLINES_MS, IDEMPOTENT_RPCS, RPC_KINDS } from "./contract.gen.js";
import type { QuireError } from "./errors.js";

export { type CallKind, RPC_KINDS };

/** Default deadline in milliseconds per call kind; `undefined` (or Infinity) = no deadline. */
export interface Timeouts {
  read?: number | undefined;
  search?: number | undefined;
  write?: number | undefined;
  sync?: number | undefined;
  upload?: number | undefined;
  watch?: number | undefined;
  gate?: number | undefined;
}

/** The contract's defaults (`(quire.v1.call_kind).default_deadline`, generated). */
export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = DEFAULT_DEADLINES_MS;

/** True for the unary reads that may be retried (`rpc` is the bare RPC name). */
export function isIdempotent(rpc: string): boolean {
  return IDEMPOTENT_RPCS.has(rpc);
}

/** A failed attempt is retried only when its gRPC status is UNAVAILABLE. */
export function isRetryable(error: Pick<QuireError, "grpcCode">): boolean {
  return error.grpcCode === Code.Unavailable;
}

/**
 * Exponential backoff with full jitter for UNAVAILABLE on idempotent reads. After failed
 * attempt n (1-based) the client waits `uniform(0, min(maxBackoffMs, initialBackoffMs *
 * multiplier ** (n - 1)))` ms, or the server's `ErrorDetail.retry_after` when that is longer.
 */
export interface RetryPolicy {
  maxAttempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  multiplier: number;
}

export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 3,
  initialBackoffMs: 200,
  maxBackoffMs: 2_000,
  multiplier: 2,
});

/** The wait after failed attempt `failedAttempt` (1-based), in milliseconds. */
export function backoffDelayMs(
  policy: RetryPolicy,
  failedAttempt: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(
    policy.maxBackoffMs,
    policy.initialBackoffMs * policy.multiplier ** (failedAttempt - 1),
  );
  const jittered = random() * ceiling;
  return retryAfterMs === undefined ? jittered : Math.max(jittered, retryAfterMs);
}

/** The deadline of one call: the call's `timeoutMs` when given, else the kind's default. */
export function resolveTimeoutMs(
  timeoutMs: number | undefined,
  kind: CallKind,
  defaults: Timeouts,
): number | undefined {
  const value = timeoutMs === undefined ? defaults[kind] : timeoutMs;
  if (value === undefined || !Number.isFinite(value)) return undefined;
  return value;
}
