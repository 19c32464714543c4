package dev.quire.client;

import java.time.Duration;
import java.util.Optional;

/**
 * Exponential backoff with full jitter for UNAVAILABLE on the contract's idempotent unary reads
 * ({@link Contract#IDEMPOTENT_RPCS}). After failed attempt n (1-based) the client waits a
 * uniformly random time in [0, min(maxBackoff, initialBackoff·multiplier^(n-1))], or the
 * server's retry_after when that is longer. One deadline covers every attempt: the client never
 * sleeps past it. {@code maxAttempts} 1 disables retries.
 */
public record RetryPolicy(
    int maxAttempts, Duration initialBackoff, Duration maxBackoff, double multiplier) {

  /** 3 attempts, 200 ms doubling up to 2 s: the policy of every Quire client. */
  public static RetryPolicy defaults() {
    return new RetryPolicy(3, Duration.ofMillis(200), Duration.ofSeconds(2), 2.0);
  }

  /** No retries. */
  public static RetryPolicy none() {
    return new RetryPolicy(1, Duration.ZERO, Duration.ZERO, 1.0);
  }

  public RetryPolicy {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1");
    }
  }

  /** The wait after failed attempt {@code failedAttempt}; {@code jitter} is in [0, 1). */
  public Duration backoff(int failedAttempt, Optional<Duration> retryAfter, double jitter) {
    double ceiling = initialBackoff.toNanos() * Math.pow(multiplier, failedAttempt - 1);
    ceiling = Math.min(ceiling, maxBackoff.toNanos());
    Duration wait = Duration.ofNanos((long) (jitter * ceiling));
    if (retryAfter.isPresent() && retryAfter.get().compareTo(wait) > 0) {
      return retryAfter.get();
    }
    return wait;
  }

  /** Whether an RPC (bare name) is retried at all: a unary read the contract marks idempotent. */
  public static boolean isIdempotent(String rpc) {
    return Contract.IDEMPOTENT_RPCS.contains(rpc);
  }
}
