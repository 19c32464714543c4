package dev.quire.client;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.quire.v1.ErrorCode;
import dev.quire.v1.ErrorDetail;
import dev.quire.v1.FieldViolation;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Every failure of a Quire call. {@link #code()} comes from the quire.v1.ErrorDetail the server
 * sends in {@code grpc-status-details-bin}, never from the message; a status without one (a
 * refused connection, a passed deadline) is mapped from its gRPC code. Each ErrorCode has its
 * subclass in {@link QuireErrors} (generated from the contract), so callers catch by type:
 * {@code catch (QuireErrors.PageChanged e)}. Unchecked, like grpc-java's own
 * StatusRuntimeException, so it passes through lambdas and CompletableFuture stages.
 */
public class QuireException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private static final String CODE_PREFIX = "ERROR_CODE_";
  private static final Metadata.Key<byte[]> STATUS_DETAILS =
      Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private final ErrorCode code;
  private final Status.Code grpcCode;
  private final transient ErrorDetail detail;

  public QuireException(
      ErrorCode code, Status.Code grpcCode, String message, ErrorDetail detail, Throwable cause) {
    super("quire: " + name(code) + (message.isEmpty() ? "" : ": " + message), cause);
    this.code = code;
    this.grpcCode = grpcCode;
    this.detail =
        detail != null ? detail : ErrorDetail.newBuilder().setCode(code).setMessage(message).build();
  }

  /** The Quire error code (never ERROR_CODE_UNSPECIFIED). */
  public ErrorCode code() {
    return code;
  }

  /** The code without its prefix, e.g. "PAGE_CHANGED" (the ErrorInfo reason). */
  public String codeName() {
    return name(code);
  }

  /** The canonical gRPC status code of the failed call. */
  public Status.Code grpcCode() {
    return grpcCode;
  }

  /** The decoded ErrorDetail; when the server sent none it holds the code and the message. */
  public ErrorDetail detail() {
    return detail;
  }

  /** The page's current revision for PAGE_CHANGED, else "". */
  public String currentRevision() {
    return detail.getCurrentRevision();
  }

  /** Each invalid request field (INVALID_REQUEST) with the bound it broke. */
  public List<FieldViolation> fieldViolations() {
    return detail.getFieldViolationsList();
  }

  /** How long the server asks the caller to wait before retrying, when it says. */
  public Optional<Duration> retryAfter() {
    if (!detail.hasRetryAfter()) {
      return Optional.empty();
    }
    var d = detail.getRetryAfter();
    return Optional.of(Duration.ofSeconds(d.getSeconds(), d.getNanos()));
  }

  /**
   * The agent tool JSON of this failure (docs/errors.md#tool_error): schema_version, error,
   * message (never for internal), current_revision, field, bound — each only when set, in that
   * order, the same bytes the Python, TypeScript and Go clients write.
   */
  public String toToolError() {
    FieldViolation first = detail.getFieldViolationsCount() > 0 ? detail.getFieldViolations(0) : null;
    return ToolJson.toolError(
        code,
        detail.getMessage(),
        currentRevision(),
        first == null ? "" : first.getField(),
        first == null ? "" : first.getBound());
  }

  /** The tool_error JSON of any failure; what is neither Quire's nor gRPC's is "internal". */
  public static String toToolError(Throwable error) {
    QuireException qe = from(error);
    if (qe == null) {
      return ToolJson.toolError(ErrorCode.ERROR_CODE_INTERNAL, "", "", "", "");
    }
    return qe.toToolError();
  }

  /** "PAGE_CHANGED" for ERROR_CODE_PAGE_CHANGED. */
  public static String name(ErrorCode code) {
    return code.name().startsWith(CODE_PREFIX) ? code.name().substring(CODE_PREFIX.length()) : code.name();
  }

  /** The lower-case name a tool_error carries ("page_changed"). */
  static String toolName(ErrorCode code) {
    return name(code).toLowerCase(Locale.ROOT);
  }

  /**
   * {@code error} as a QuireException: one (possibly wrapped in a CompletionException or
   * ExecutionException) is returned as is; a gRPC status is decoded; anything else gives null.
   */
  public static QuireException from(Throwable error) {
    Throwable t = error;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof QuireException) {
      return (QuireException) t;
    }
    if (t instanceof StatusRuntimeException) {
      var s = (StatusRuntimeException) t;
      return fromStatus(s.getStatus(), s.getTrailers(), t);
    }
    if (t instanceof StatusException) {
      var s = (StatusException) t;
      return fromStatus(s.getStatus(), s.getTrailers(), t);
    }
    if (t instanceof CancellationException) {
      return fromStatus(Status.CANCELLED.withDescription(t.getMessage()), null, t);
    }
    return null;
  }

  /** The ErrorDetail in trailers, or null (also when it does not parse). */
  public static ErrorDetail errorDetail(Metadata trailers) {
    if (trailers == null) {
      return null;
    }
    byte[] raw = trailers.get(STATUS_DETAILS);
    if (raw == null) {
      return null;
    }
    try {
      var status = com.google.rpc.Status.parseFrom(raw);
      for (var any : status.getDetailsList()) {
        if (any.is(ErrorDetail.class)) {
          return any.unpack(ErrorDetail.class);
        }
      }
    } catch (InvalidProtocolBufferException e) {
      return null;
    }
    return null;
  }

  static QuireException fromStatus(Status status, Metadata trailers, Throwable cause) {
    String message = status.getDescription();
    if (message == null || message.isEmpty()) {
      message = status.getCode().name();
    }
    ErrorDetail detail = errorDetail(trailers);
    ErrorCode code = detail == null ? ErrorCode.ERROR_CODE_UNSPECIFIED : detail.getCode();
    if (code == ErrorCode.ERROR_CODE_UNSPECIFIED || code == ErrorCode.UNRECOGNIZED) {
      code = Contract.CODE_BY_GRPC_STATUS.getOrDefault(status.getCode(), ErrorCode.ERROR_CODE_INTERNAL);
    }
    if (detail == null) {
      detail = ErrorDetail.newBuilder().setCode(code).setMessage(message).build();
    }
    return QuireErrors.of(code, status.getCode(), message, detail, cause);
  }
}
