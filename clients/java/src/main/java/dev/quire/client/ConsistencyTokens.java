package dev.quire.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Session consistency with read replicas: the highest consistency token a client has seen.
 *
 * <p>A Quire server with read replicas answers every write with the response metadata {@code
 * quire-consistency-token} (the primary's WAL position after the write, e.g. {@code 0/16B3748}),
 * and a read sent with such a token is served only by a database node that has caught up to it.
 * The client remembers the highest token any response (or watch message) carried and sends it
 * with every read, so it reads its own writes. Servers without replicas send no token, and the
 * client then sends none. Shared by a client, its async face and its withTimeout views; safe for
 * concurrent use. Mirrors the Python, TypeScript and Go clients.
 */
public final class ConsistencyTokens {
  /** The metadata key of a consistency token. */
  public static final String TOKEN_KEY = "quire-consistency-token";
  static final Metadata.Key<String> KEY = Metadata.Key.of(TOKEN_KEY, Metadata.ASCII_STRING_MARSHALLER);
  private static final Pattern TOKEN = Pattern.compile("([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})");

  private final boolean enabled;
  private String token; // guarded by this
  private long position; // unsigned; meaningful only when token != null

  /** {@code enabled} false: nothing is remembered or sent (reads may lag the client's writes). */
  public ConsistencyTokens(boolean enabled) {
    this.enabled = enabled;
  }

  public boolean enabled() {
    return enabled;
  }

  /** A token's WAL position ((hi << 32) | lo, unsigned); IllegalArgumentException if not a token. */
  public static long position(String token) {
    Matcher m = token == null ? null : TOKEN.matcher(token.strip());
    if (m == null || !m.matches()) {
      String shown = token == null ? "null" : token.substring(0, Math.min(40, token.length()));
      throw new IllegalArgumentException("not a Quire consistency token: \"" + shown + "\"");
    }
    return (Long.parseLong(m.group(1), 16) << 32) | Long.parseLong(m.group(2), 16);
  }

  /** The highest token seen (or set); empty before any. */
  public synchronized Optional<String> current() {
    return Optional.ofNullable(token);
  }

  /**
   * Remembers {@code token} if it is past the current one (e.g. a token another process handed
   * over); IllegalArgumentException if it is not a token.
   */
  public void advance(String token) {
    long p = position(token);
    synchronized (this) {
      // Compared as positions, not text: "1/0" is past "0/FFFFFFFF".
      if (this.token == null || Long.compareUnsigned(p, position) > 0) {
        this.token = token.strip();
        this.position = p;
      }
    }
  }

  /** Takes a token a message carried (WatchDocumentsResponse.consistency_token); "" is none. */
  void observeToken(String token) {
    if (!enabled || token == null || token.isEmpty()) {
      return;
    }
    try {
      advance(token);
    } catch (IllegalArgumentException e) {
      // A malformed token from the server must not fail the caller's call.
    }
  }

  /** Takes the token from a response's metadata, if it carries one. */
  void observe(Metadata metadata) {
    if (metadata != null) {
      observeToken(metadata.get(KEY));
    }
  }

  /**
   * Sends the current token with the contract's idempotent reads (a write needs none: it goes to
   * the primary) and keeps the token of every call's headers and trailers once it has closed.
   */
  ClientInterceptor interceptor() {
    return new ClientInterceptor() {
      @Override
      public <Req, Resp> ClientCall<Req, Resp> interceptCall(
          MethodDescriptor<Req, Resp> method, CallOptions options, Channel next) {
        ClientCall<Req, Resp> call = next.newCall(method, options);
        if (!enabled) {
          return call;
        }
        boolean read = RetryPolicy.isIdempotent(method.getBareMethodName());
        return new ForwardingClientCall.SimpleForwardingClientCall<>(call) {
          @Override
          public void start(Listener<Resp> listener, Metadata headers) {
            Optional<String> sent = read ? current() : Optional.empty();
            sent.ifPresent(t -> headers.put(KEY, t));
            super.start(
                new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                  private Metadata responseHeaders;

                  @Override
                  public void onHeaders(Metadata h) {
                    responseHeaders = h;
                    super.onHeaders(h);
                  }

                  @Override
                  public void onClose(Status status, Metadata trailers) {
                    // Kept before the caller sees the result, so its next read carries it.
                    observe(responseHeaders);
                    observe(trailers);
                    super.onClose(status, trailers);
                  }
                },
                headers);
          }
        };
      }
    };
  }
}
