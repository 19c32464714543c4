package dev.quire.client;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import dev.quire.v1.ErrorCode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The JSON an agent tool returns: {@link #toolResult} for a result, {@link #toolError} for a
 * failure. Both write the bytes the Python client writes (its json.dumps with
 * ensure_ascii=False and compact separators), which the TypeScript and Go clients match too.
 */
public final class ToolJson {
  /** The schema_version of tool_error JSON. */
  public static final int TOOL_ERROR_SCHEMA_VERSION = 1;

  private static final JsonFormat.Printer PRINTER =
      JsonFormat.printer().preservingProtoFieldNames().alwaysPrintFieldsWithNoPresence();

  private ToolJson() {}

  /**
   * A call's result as a tool returns it: protobuf's JSON mapping with the proto field names,
   * every field present, keys sorted, compact, raw UTF-8 (the encoding the server's output
   * budgets count). 64-bit integers are strings; doubles print as Python prints them.
   */
  public static String toolResult(MessageOrBuilder result) {
    StringBuilder out = new StringBuilder();
    write(parsed(result), out);
    return out.toString();
  }

  /** A list result (e.g. listCollections) as a JSON array of {@link #toolResult} objects. */
  public static String toolResult(List<? extends MessageOrBuilder> results) {
    JsonArray array = new JsonArray();
    for (MessageOrBuilder m : results) {
      array.add(parsed(m));
    }
    StringBuilder out = new StringBuilder();
    write(array, out);
    return out.toString();
  }

  /**
   * The tool_error JSON: schema_version, error (the code in lower case without its prefix),
   * then message (never for internal), current_revision, field and bound, each only when set.
   */
  public static String toolError(
      ErrorCode code, String message, String currentRevision, String field, String bound) {
    StringBuilder out = new StringBuilder("{\"schema_version\":").append(TOOL_ERROR_SCHEMA_VERSION);
    out.append(",\"error\":");
    string(QuireException.toolName(code), out);
    // An internal failure never says more than its code: its text may come from a runtime or
    // from code that is not Quire's, which is not the model's to read.
    if (!message.isEmpty() && code != ErrorCode.ERROR_CODE_INTERNAL) {
      member("message", message, out);
    }
    member("current_revision", currentRevision, out);
    member("field", field, out);
    member("bound", bound, out);
    return out.append('}').toString();
  }

  private static void member(String key, String value, StringBuilder out) {
    if (value.isEmpty()) {
      return;
    }
    out.append(',');
    string(key, out);
    out.append(':');
    string(value, out);
  }

  private static JsonElement parsed(MessageOrBuilder message) {
    try {
      return JsonParser.parseString(PRINTER.print(message));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("not printable as JSON: " + e.getMessage(), e);
    }
  }

  private static void write(JsonElement value, StringBuilder out) {
    if (value.isJsonObject()) {
      JsonObject object = value.getAsJsonObject();
      List<String> keys = new ArrayList<>(object.keySet());
      Collections.sort(keys);
      out.append('{');
      for (int i = 0; i < keys.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        string(keys.get(i), out);
        out.append(':');
        write(object.get(keys.get(i)), out);
      }
      out.append('}');
    } else if (value.isJsonArray()) {
      out.append('[');
      JsonArray array = value.getAsJsonArray();
      for (int i = 0; i < array.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        write(array.get(i), out);
      }
      out.append(']');
    } else if (value.isJsonNull()) {
      out.append("null");
    } else {
      JsonPrimitive p = value.getAsJsonPrimitive();
      if (p.isString()) {
        string(p.getAsString(), out);
      } else if (p.isBoolean()) {
        out.append(p.getAsBoolean());
      } else {
        String text = p.getAsNumber().toString();
        boolean integral = text.chars().noneMatch(c -> c == '.' || c == 'e' || c == 'E');
        out.append(integral ? text : pythonFloat(Double.parseDouble(text)));
      }
    }
  }

  /** A JSON string as Python's json.dumps(ensure_ascii=False) writes it. */
  static void string(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        case '\b':
          out.append("\\b");
          break;
        case '\f':
          out.append("\\f");
          break;
        default:
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
  }

  /**
   * A double as Python's repr writes it: the shortest digits that read back, positional for
   * decimal exponents -4 to 15 ("0.0001", "1000000000000000.0"), else scientific ("1e-05",
   * "1e+16", "2.5e-07").
   */
  public static String pythonFloat(double value) {
    if (Double.isNaN(value)) {
      return "NaN";
    }
    if (Double.isInfinite(value)) {
      return value > 0 ? "Infinity" : "-Infinity";
    }
    if (value == 0) {
      return (1 / value < 0) ? "-0.0" : "0.0";
    }
    BigDecimal exact = new BigDecimal(Double.toString(Math.abs(value))).stripTrailingZeros();
    String digits = exact.unscaledValue().toString();
    // value = 0.d1d2d3... × 10^(point): point is the decimal exponent of the first digit + 1.
    int point = digits.length() - exact.scale();
    int exponent = point - 1;
    String sign = value < 0 ? "-" : "";
    if (exponent < -4 || exponent >= 16) {
      String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
      String exp = String.format("%s%02d", exponent < 0 ? "-" : "+", Math.abs(exponent));
      return sign + mantissa + "e" + exp;
    }
    if (point <= 0) {
      return sign + "0." + "0".repeat(-point) + digits;
    }
    if (point >= digits.length()) {
      return sign + digits + "0".repeat(point - digits.length()) + ".0";
    }
    return sign + digits.substring(0, point) + "." + digits.substring(point);
  }
}
