package dev.quire.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

/** A malformed tool call is refused before it is sent, with the JSON a server refusal has. */
class ToolRunnerTest {
  private static final JsonObject SCHEMA = JsonParser.parseString(
      "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\"},\"limit\":{\"type\":\"integer\"},"
          + "\"alternatives\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},\"required\":[\"query\"]}")
      .getAsJsonObject();

  private static String refusal(String arguments) {
    var e = assertThrows(QuireErrors.InvalidRequest.class,
        () -> ToolRunner.checked(SCHEMA, JsonParser.parseString(arguments).getAsJsonObject()));
    return e.toToolError();
  }

  @Test
  void argumentsAreCheckedForNamesPresenceAndTypes() {
    assertEquals("{\"schema_version\":1,\"error\":\"invalid_request\",\"message\":\"color: not an argument of this tool\","
        + "\"field\":\"color\",\"bound\":\"one of: query, limit, alternatives\"}", refusal("{\"query\":\"q\",\"color\":1}"));
    assertEquals("{\"schema_version\":1,\"error\":\"invalid_request\",\"message\":\"query: is required\","
        + "\"field\":\"query\",\"bound\":\"required\"}", refusal("{\"limit\":3}"));
    assertEquals("{\"schema_version\":1,\"error\":\"invalid_request\",\"message\":\"limit: must be a JSON integer\","
        + "\"field\":\"limit\",\"bound\":\"integer\"}", refusal("{\"query\":\"q\",\"limit\":2.5}"));
    assertEquals("{\"schema_version\":1,\"error\":\"invalid_request\",\"message\":\"alternatives: every item must be a JSON string\","
        + "\"field\":\"alternatives\",\"bound\":\"array of string\"}", refusal("{\"query\":\"q\",\"alternatives\":[1]}"));
    // A null is "not given", as OpenAI's strict mode sends optional arguments.
    assertEquals("{\"query\":\"q\"}",
        ToolRunner.checked(SCHEMA, JsonParser.parseString("{\"query\":\"q\",\"limit\":null}").getAsJsonObject()).toString());
  }
}
