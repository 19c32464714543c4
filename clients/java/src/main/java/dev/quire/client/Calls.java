package dev.quire.client;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * How every call is made: the default deadline of its kind (unless the caller set one), retries
 * of idempotent unary reads on UNAVAILABLE within that one deadline, failures as QuireException.
 */
final class Calls {
  final Channel channel;
  private final Map<Contract.CallKind, Duration> timeouts;
  private final RetryPolicy retry;
  private final ScheduledExecutorService scheduler;
  private final Duration timeout; // the caller's, over every kind; null: the kind's default
  final ConsistencyTokens tokens; // the channel's interceptor sends and keeps them

  Calls(
      Channel channel,
      Map<Contract.CallKind, Duration> timeouts,
      RetryPolicy retry,
      ScheduledExecutorService scheduler,
      Duration timeout,
      ConsistencyTokens tokens) {
    this.channel = channel;
    this.tokens = tokens;
    this.timeouts = timeouts;
    this.retry = retry;
    this.scheduler = scheduler;
    this.timeout = timeout;
  }

  Calls withTimeout(Duration timeout) {
    return new Calls(channel, timeouts, retry, scheduler, timeout, tokens);
  }

  /** The deadline of a call of `rpc` started now; null: none. */
  Deadline deadline(String rpc) {
    Duration d = timeout;
    if (d == null) {
      Contract.CallKind kind = Contract.RPC_KINDS.get(rpc);
      d = kind == null ? null : timeouts.getOrDefault(kind, kind.defaultDeadline());
    }
    return d == null ? null : Deadline.after(d.toNanos(), TimeUnit.NANOSECONDS);
  }

  private CallOptions options(Deadline deadline) {
    return deadline == null ? CallOptions.DEFAULT : CallOptions.DEFAULT.withDeadline(deadline);
  }

  <Req, Resp> CompletableFuture<Resp> unary(MethodDescriptor<Req, Resp> method, Req request) {
    String rpc = method.getBareMethodName();
    int attempts = RetryPolicy.isIdempotent(rpc) ? retry.maxAttempts() : 1;
    CompletableFuture<Resp> result = new CompletableFuture<>();
    attempt(method, request, deadline(rpc), 1, attempts, result);
    return result;
  }

  private <Req, Resp> void attempt(
      MethodDescriptor<Req, Resp> method,
      Req request,
      Deadline deadline,
      int attempt,
      int attempts,
      CompletableFuture<Resp> result) {
    ClientCall<Req, Resp> call = channel.newCall(method, options(deadline));
    ListenableFuture<Resp> future = ClientCalls.futureUnaryCall(call, request);
    result.whenComplete(
        (r, e) -> {
          if (result.isCancelled()) {
            future.cancel(true);
          }
        });
    Futures.addCallback(
        future,
        new FutureCallback<>() {
          @Override
          public void onSuccess(Resp reply) {
            result.complete(reply);
          }

          @Override
          public void onFailure(Throwable t) {
            QuireException error = QuireException.from(t);
            if (error == null) {
              result.completeExceptionally(t);
              return;
            }
            if (attempt >= attempts || error.grpcCode() != Status.Code.UNAVAILABLE) {
              result.completeExceptionally(error);
              return;
            }
            Duration wait =
                retry.backoff(attempt, error.retryAfter(), ThreadLocalRandom.current().nextDouble());
            if (deadline != null && deadline.timeRemaining(TimeUnit.NANOSECONDS) <= wait.toNanos()) {
              result.completeExceptionally(error);
              return;
            }
            scheduler.schedule(
                () -> attempt(method, request, deadline, attempt + 1, attempts, result),
                wait.toNanos(),
                TimeUnit.NANOSECONDS);
          }
        },
        MoreExecutors.directExecutor());
  }

  /** A new call of `method` with its kind's deadline (or the caller's). */
  <Req, Resp> ClientCall<Req, Resp> newCall(MethodDescriptor<Req, Resp> method) {
    return channel.newCall(method, options(deadline(method.getBareMethodName())));
  }

  /** Starts a streaming call whose server messages are read from the returned CallStream. */
  <Req, Resp> CallStream<Resp> stream(
      MethodDescriptor<Req, Resp> method, BiConsumer<CallStream<Resp>, Resp> onEach) {
    ClientCall<Req, Resp> call =
        channel.newCall(method, options(deadline(method.getBareMethodName())));
    CallStream<Resp> stream = new CallStream<>();
    call.start(stream.listener(), new Metadata());
    stream.start(call, onEach);
    return stream;
  }

  /** A server-streaming call: the request is sent and the request side closed at once. */
  <Req, Resp> CallStream<Resp> serverStream(MethodDescriptor<Req, Resp> method, Req request) {
    CallStream<Resp> stream = stream(method, (s, m) -> {});
    stream.send(request);
    stream.halfClose();
    return stream;
  }

  /**
   * A client-streaming call: every message, the request side closed, then the one reply.
   * Messages are taken from {@code messages} only while the transport is ready for more (so a
   * large upload is read as it is sent, not buffered whole), on gRPC's threads; a failure of
   * the iterator (a read error) cancels the call and fails the future with it.
   */
  <Req, Resp> CompletableFuture<Resp> clientStream(
      MethodDescriptor<Req, Resp> method, Iterable<Req> messages) {
    ClientCall<Req, Resp> call = newCall(method);
    CompletableFuture<Resp> result = new CompletableFuture<>();
    Iterator<Req> source = messages.iterator();
    Runnable pump = new Runnable() {
      private boolean closed;

      @Override
      public synchronized void run() {
        try {
          while (!closed && !result.isDone() && call.isReady()) {
            if (!source.hasNext()) {
              closed = true;
              call.halfClose();
              return;
            }
            call.sendMessage(source.next());
          }
        } catch (RuntimeException e) {
          closed = true;
          call.cancel("the upload's data could not be read", e);
          result.completeExceptionally(e);
        }
      }
    };
    call.start(
        new ClientCall.Listener<>() {
          private Resp reply;

          @Override
          public void onReady() {
            pump.run();
          }

          @Override
          public void onMessage(Resp message) {
            reply = message;
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            if (status.isOk()) {
              result.complete(reply);
            } else {
              // The server may end the call early (a refused upload); its status is the answer.
              result.completeExceptionally(
                  QuireException.fromStatus(status, trailers, status.asRuntimeException(trailers)));
            }
          }
        },
        new Metadata());
    call.request(1);
    pump.run();
    result.whenComplete(
        (r, e) -> {
          if (result.isCancelled()) {
            call.cancel("cancelled by the caller", null);
          }
        });
    return result;
  }
}
