package dev.quire.conformance;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/** What a step gave: the response JSON, or a failure. */
final class Outcome {
  record Failure(String grpcCode, String errorCode, JsonObject detail, String message) {}

  final JsonElement ok;
  final Failure error;

  private Outcome(JsonElement ok, Failure error) {
    this.ok = ok;
    this.error = error;
  }

  static Outcome ok(JsonElement ok) {
    return new Outcome(ok, null);
  }

  static Outcome failed(Failure error) {
    return new Outcome(null, error);
  }
}
