package dev.quire.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.google.protobuf.Any;
import com.google.protobuf.Timestamp;
import dev.quire.v1.Document;
import dev.quire.v1.DocumentStatus;
import dev.quire.v1.ErrorCode;
import dev.quire.v1.ErrorDetail;
import dev.quire.v1.FieldViolation;
import dev.quire.v1.SearchHit;
import dev.quire.v1.SearchResult;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bytes the Python, TypeScript and Go clients' tests expect for the same values. */
class ToolJsonTest {
  private static QuireException rich(Status status, ErrorDetail detail) {
    Metadata trailers = new Metadata();
    var rpc = com.google.rpc.Status.newBuilder().setCode(status.getCode().value()).addDetails(Any.pack(detail)).build();
    trailers.put(Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER), rpc.toByteArray());
    return QuireException.from(status.asRuntimeException(trailers));
  }

  @Test
  void toolErrorKeysInOrderAndOnlyWhenSet() {
    var changed = rich(Status.FAILED_PRECONDITION, ErrorDetail.newBuilder()
        .setCode(ErrorCode.ERROR_CODE_PAGE_CHANGED).setCurrentRevision("3f2a<&>").build());
    assertInstanceOf(QuireErrors.PageChanged.class, changed);
    assertEquals("{\"schema_version\":1,\"error\":\"page_changed\",\"current_revision\":\"3f2a<&>\"}", changed.toToolError());
    var withMessage = rich(Status.INVALID_ARGUMENT, ErrorDetail.newBuilder()
        .setCode(ErrorCode.ERROR_CODE_INVALID_REQUEST).setMessage("limit: at most 8")
        .addFieldViolations(FieldViolation.newBuilder().setField("limit").setBound("1–8")).build());
    assertEquals("{\"schema_version\":1,\"error\":\"invalid_request\",\"message\":\"limit: at most 8\",\"field\":\"limit\",\"bound\":\"1–8\"}",
        withMessage.toToolError());
    assertEquals("{\"schema_version\":1,\"error\":\"internal\"}", QuireException.toToolError(new IllegalStateException("boom")));
    // Without an ErrorDetail the status message stands in, and the code comes from the status.
    assertEquals("{\"schema_version\":1,\"error\":\"unavailable\",\"message\":\"down\"}",
        QuireException.toToolError(Status.UNAVAILABLE.withDescription("down").asRuntimeException()));
    var internal = rich(Status.INTERNAL, ErrorDetail.newBuilder().setCode(ErrorCode.ERROR_CODE_INTERNAL).setMessage("secret").build());
    assertEquals("{\"schema_version\":1,\"error\":\"internal\"}", internal.toToolError());
  }

  @Test
  void statusWithoutDetailMapsByAssumedFor() {
    QuireException e = QuireException.from(Status.FAILED_PRECONDITION.asRuntimeException());
    assertEquals(ErrorCode.ERROR_CODE_INTERNAL, e.code());
    assertEquals("FAILED_PRECONDITION", e.detail().getMessage());
    assertEquals(ErrorCode.ERROR_CODE_UNAVAILABLE, QuireException.from(Status.UNAVAILABLE.asRuntimeException()).code());
    assertNull(QuireException.from(new RuntimeException("plain")));
  }

  @Test
  void toolResultAsPythonWritesIt() {
    Document d = Document.newBuilder().setDocumentId("d1").setSizeBytes(-1L).setRevision(9007199254740993L)
        .setFileName("Straße 🚀\n\"q\"\u0001").setStatus(DocumentStatus.DOCUMENT_STATUS_PROCESSING)
        .setCreatedAt(Timestamp.newBuilder().setSeconds(1_700_000_000L).setNanos(123_000_000)).build();
    String text = ToolJson.toolResult(d);
    String expectedStart = "{\"attempts\":0,\"collection_id\":\"\",\"created_at\":\"2023-11-14T22:13:20.123Z\",";
    assertEquals(expectedStart, text.substring(0, expectedStart.length()));
    assertEquals(true, text.contains("\"file_name\":\"Straße 🚀\\n\\\"q\\\"\\u0001\""));
    assertEquals(true, text.contains("\"revision\":\"9007199254740993\",") && text.contains("\"size_bytes\":\"18446744073709551615\""));
    double[] scores = {1.0, 0.1, 1e-5, 1e16, 123456.789, -0.5, 0.0001, 1e15, 2.5e-7, 1e300};
    String[] printed = {"1.0", "0.1", "1e-05", "1e+16", "123456.789", "-0.5", "0.0001", "1000000000000000.0", "2.5e-07", "1e+300"};
    var result = SearchResult.newBuilder().setNamespace("docs").setFilesystemVersion(7);
    List<String> hits = new ArrayList<>();
    for (int rank = 0; rank < scores.length; rank++) {
      result.addHits(SearchHit.newBuilder().setScore(scores[rank]).setRank(rank));
      assertEquals(printed[rank], ToolJson.pythonFloat(scores[rank]));
      hits.add("{\"chunk_id\":\"\",\"content\":\"\",\"heading_path\":[],\"path\":\"\",\"rank\":" + rank
          + ",\"revision\":\"\",\"schema_version\":0,\"score\":" + printed[rank] + ",\"title\":\"\",\"url\":\"\"}");
    }
    assertEquals("{\"filesystem_version\":\"7\",\"hits\":[" + String.join(",", hits) + "],\"namespace\":\"docs\",\"omitted_count\":0,"
        + "\"partial\":false,\"query\":\"\",\"schema_version\":0,\"truncated\":false,\"warnings\":[]}", ToolJson.toolResult(result));
  }
}
