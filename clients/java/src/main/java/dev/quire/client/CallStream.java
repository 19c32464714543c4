package dev.quire.client;

import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The server messages of a streaming call, read one at a time ({@code for (var m : stream)}).
 * The call's failure is thrown from {@link #hasNext()} as a QuireException, once. Closing it
 * (try-with-resources, or breaking out and calling close) cancels the call, which the server
 * treats as a cooperative stop; a stream read to its end needs no close.
 */
public final class CallStream<T> implements Iterator<T>, Iterable<T>, AutoCloseable {
  private static final Object END = new Object();

  private final LinkedBlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
  private ClientCall<?, T> call;
  private BiConsumer<CallStream<T>, T> onEach = (s, m) -> {};
  private Function<Object, Object> unwrap = m -> m;
  private Object next;
  private boolean done;

  CallStream() {}

  /** The listener that feeds this stream; one message is asked for at a time. */
  ClientCall.Listener<T> listener() {
    return new ClientCall.Listener<>() {
      @Override
      public void onMessage(T message) {
        inbox.add(new Message<>(message));
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        inbox.add(status.isOk() ? END : QuireException.fromStatus(status, trailers, status.asRuntimeException(trailers)));
      }
    };
  }

  void start(ClientCall<?, T> call, BiConsumer<CallStream<T>, T> onEach) {
    this.call = call;
    this.onEach = onEach;
    call.request(1);
  }

  /** Sends a request message on a bidi call (the sync's discovery decision). */
  @SuppressWarnings("unchecked")
  <Req> void send(Req message) {
    ((ClientCall<Req, T>) call).sendMessage(message);
  }

  void halfClose() {
    call.halfClose();
  }

  private record Message<T>(T value) {}

  @Override
  public boolean hasNext() {
    if (next != null) {
      return true;
    }
    if (done) {
      return false;
    }
    Object item;
    try {
      item = inbox.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      close();
      throw QuireException.fromStatus(Status.CANCELLED.withDescription("interrupted"), null, e);
    }
    if (item == END) {
      done = true;
      return false;
    }
    if (item instanceof QuireException) {
      done = true;
      throw (QuireException) item;
    }
    next = item;
    return true;
  }

  @Override
  @SuppressWarnings("unchecked")
  public T next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    T raw = ((Message<T>) next).value();
    next = null;
    onEach.accept(this, raw);
    call.request(1);
    return (T) unwrap.apply(raw);
  }

  /** This stream yielding f of each server message (set before reading). */
  @SuppressWarnings("unchecked")
  <U> CallStream<U> map(Function<? super T, ? extends U> f) {
    Function<Object, Object> before = unwrap;
    unwrap = m -> f.apply((T) before.apply(m));
    return (CallStream<U>) this;
  }

  @Override
  public Iterator<T> iterator() {
    return this;
  }

  /** Cancels the call when it is still running; idempotent. */
  @Override
  public void close() {
    if (!done) {
      done = true;
      call.cancel("closed by the caller", null);
    }
  }
}
