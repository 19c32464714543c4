package dev.quire.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PolicyTest {
  @Test
  void backoffIsFullJitterUnderACeilingAndHonoursRetryAfter() {
    RetryPolicy p = RetryPolicy.defaults();
    assertEquals(Duration.ofMillis(100), p.backoff(1, Optional.empty(), 0.5));
    assertEquals(Duration.ofMillis(200), p.backoff(2, Optional.empty(), 0.5));
    assertEquals(Duration.ofSeconds(1), p.backoff(10, Optional.empty(), 0.5)); // capped at 2 s
    assertEquals(Duration.ZERO, p.backoff(3, Optional.empty(), 0.0));
    assertEquals(Duration.ofSeconds(3), p.backoff(1, Optional.of(Duration.ofSeconds(3)), 0.9));
  }

  @Test
  void onlyIdempotentUnaryReadsAreRetriedAndKindsCarryDeadlines() {
    assertTrue(RetryPolicy.isIdempotent("GetDocument"));
    assertTrue(RetryPolicy.isIdempotent("SearchPages"));
    assertFalse(RetryPolicy.isIdempotent("CreateCollection"));
    assertFalse(RetryPolicy.isIdempotent("SyncPages"));
    assertEquals(Duration.ofSeconds(10), Contract.RPC_KINDS.get("ReadPage").defaultDeadline());
    assertEquals(Duration.ofMinutes(30), Contract.RPC_KINDS.get("SyncPages").defaultDeadline());
    assertNull(Contract.RPC_KINDS.get("WatchDocuments").defaultDeadline());
  }

  @Test
  void uploadsAreCutIntoMebibytePiecesAndBatchesAtTheirBounds() {
    byte[] data = new byte[2 * Uploads.CHUNK_SIZE + 1];
    List<ByteString> pieces = Uploads.pieces(data);
    assertEquals(List.of(Uploads.CHUNK_SIZE, Uploads.CHUNK_SIZE, 1), pieces.stream().map(ByteString::size).toList());
    assertEquals(0, Uploads.pieces(new byte[0]).size());
    var items = new java.util.ArrayList<UploadItem>();
    for (int i = 0; i < 1001; i++) {
      items.add(UploadItem.of("f" + i, new byte[1]));
    }
    assertEquals(List.of(1000, 1), Uploads.batches(items, Long.MAX_VALUE).stream().map(List::size).toList());
    assertEquals(List.of(2, 2, 1), Uploads.batches(items.subList(0, 5), 2).stream().map(List::size).toList());
  }
}
