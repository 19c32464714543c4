package dev.quire.client;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import dev.quire.v1.DescribeToolsRequest;
import dev.quire.v1.ErrorCode;
import dev.quire.v1.ErrorDetail;
import dev.quire.v1.FieldViolation;
import dev.quire.v1.GrepPagesRequest;
import dev.quire.v1.ListPagesRequest;
import dev.quire.v1.ReadDocumentRequest;
import dev.quire.v1.ReadPageRequest;
import dev.quire.v1.RunCommandRequest;
import dev.quire.v1.SearchKnowledgeRequest;
import dev.quire.v1.SearchPagesRequest;
import dev.quire.v1.ToolDefinition;
import io.grpc.Status;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Runs Quire's agent tools for a model: {@link #definitions()} are the tools DescribeTools gives
 * for this key, bound to a namespace and an agent when given (the model never chooses them);
 * {@link #call} runs one tool call by name with its JSON arguments and never throws for a
 * failed call: the answer is tool-result JSON ({@link ToolJson#toolResult}), or tool_error
 * JSON with {@code field} and {@code bound} when an argument was at fault — the server's
 * refusal or this runner's (an unknown argument, a missing one, a wrong JSON type).
 */
public final class ToolRunner {
  /** What a tool call gives the model: the text, and whether it is a tool_error. */
  public record ToolOutcome(String text, boolean isError) {}

  private record Tool(Message prototype, boolean pages, Function<Message, MessageOrBuilder> run) {}

  private final QuireClient client;
  private final String namespace;
  private final String agentId;
  private final Map<String, Tool> tools = new LinkedHashMap<>();
  private Map<String, ToolDefinition> definitions;

  public ToolRunner(QuireClient client, String namespace, String agentId) {
    this.client = client;
    this.namespace = namespace == null ? "" : namespace;
    this.agentId = agentId == null ? "" : agentId;
    tools.put("search_pages", new Tool(SearchPagesRequest.getDefaultInstance(), true, r -> client.searchPages((SearchPagesRequest) r)));
    tools.put("read_page", new Tool(ReadPageRequest.getDefaultInstance(), true, r -> client.readPage((ReadPageRequest) r)));
    tools.put("list_pages", new Tool(ListPagesRequest.getDefaultInstance(), true, r -> client.listPages((ListPagesRequest) r)));
    tools.put("grep_pages", new Tool(GrepPagesRequest.getDefaultInstance(), true, r -> client.grepPages((GrepPagesRequest) r)));
    tools.put("query_pages", new Tool(RunCommandRequest.getDefaultInstance(), true, r -> client.runCommand((RunCommandRequest) r)));
    tools.put("search_knowledge", new Tool(SearchKnowledgeRequest.getDefaultInstance(), false,
        r -> client.searchKnowledge((SearchKnowledgeRequest) r)));
    tools.put("read_document", new Tool(ReadDocumentRequest.getDefaultInstance(), false,
        r -> client.readDocument((ReadDocumentRequest) r)));
  }

  /** The tools for this key and these bindings, asked once (register them with the model). */
  public synchronized List<ToolDefinition> definitions() {
    if (definitions == null) {
      var listed = client.describeTools(
          DescribeToolsRequest.newBuilder().setNamespace(namespace).setAgentId(agentId).build());
      definitions = new LinkedHashMap<>();
      listed.forEach(d -> definitions.put(d.getName(), d));
    }
    return List.copyOf(definitions.values());
  }

  /** Runs one tool call; {@code argumentsJson} is the model's JSON object of arguments. */
  public ToolOutcome call(String name, String argumentsJson) {
    try {
      definitions();
      ToolDefinition definition = definitions.get(name);
      Tool tool = tools.get(name);
      if (definition == null || tool == null) {
        throw argumentError("name", "no tool '" + name + "'", "one of: " + String.join(", ", definitions.keySet()));
      }
      JsonObject schema = JsonParser.parseString(definition.getInputSchemaJson()).getAsJsonObject();
      JsonElement parsed = JsonParser.parseString(argumentsJson == null || argumentsJson.isBlank() ? "{}" : argumentsJson);
      if (!parsed.isJsonObject()) {
        throw argumentError("arguments", "must be a JSON object", "object");
      }
      JsonObject args = checked(schema, parsed.getAsJsonObject());
      if (tool.pages() && !namespace.isEmpty()) {
        args.addProperty("namespace", namespace);
      } else if (!tool.pages() && !agentId.isEmpty()) {
        args.addProperty("agent_id", agentId);
      }
      Message.Builder request = tool.prototype().newBuilderForType();
      JsonFormat.parser().merge(args.toString(), request);
      return new ToolOutcome(ToolJson.toolResult(tool.run().apply(request.build())), false);
    } catch (InvalidProtocolBufferException e) {
      return new ToolOutcome(argumentError("arguments", "malformed: " + e.getMessage(), "").toToolError(), true);
    } catch (RuntimeException e) { // a typed QuireException, or anything else as `internal`
      return new ToolOutcome(QuireException.toToolError(e), true);
    }
  }

  /** The INVALID_REQUEST the server would send, for a call refused before it is sent. */
  static QuireException argumentError(String field, String description, String bound) {
    var detail = ErrorDetail.newBuilder()
        .setCode(ErrorCode.ERROR_CODE_INVALID_REQUEST)
        .setMessage(field + ": " + description)
        .addFieldViolations(FieldViolation.newBuilder().setField(field).setDescription(description).setBound(bound))
        .build();
    return QuireErrors.of(ErrorCode.ERROR_CODE_INVALID_REQUEST, Status.Code.INVALID_ARGUMENT, detail.getMessage(), detail, null);
  }

  /** The arguments checked for names, presence and JSON types (the server checks bounds). */
  static JsonObject checked(JsonObject schema, JsonObject arguments) {
    JsonObject given = new JsonObject();
    arguments.entrySet().stream().filter(e -> !e.getValue().isJsonNull()).forEach(e -> given.add(e.getKey(), e.getValue()));
    JsonObject properties = schema.getAsJsonObject("properties");
    for (String name : given.keySet()) {
      if (!properties.has(name)) {
        throw argumentError(name, "not an argument of this tool", "one of: " + String.join(", ", properties.keySet()));
      }
    }
    if (schema.has("required")) {
      for (JsonElement required : schema.getAsJsonArray("required")) {
        if (!given.has(required.getAsString())) {
          throw argumentError(required.getAsString(), "is required", "required");
        }
      }
    }
    for (var e : given.entrySet()) {
      JsonObject property = properties.getAsJsonObject(e.getKey());
      String kind = property.has("type") ? property.get("type").getAsString() : "";
      if (!isType(e.getValue(), kind)) {
        throw argumentError(e.getKey(), "must be a JSON " + kind, kind);
      }
      if (kind.equals("array") && property.has("items") && property.getAsJsonObject("items").has("type")) {
        String items = property.getAsJsonObject("items").get("type").getAsString();
        for (JsonElement item : e.getValue().getAsJsonArray()) {
          if (!isType(item, items)) {
            throw argumentError(e.getKey(), "every item must be a JSON " + items, "array of " + items);
          }
        }
      }
    }
    return given;
  }

  private static boolean isType(JsonElement value, String kind) {
    switch (kind) {
      case "string":
        return value.isJsonPrimitive() && value.getAsJsonPrimitive().isString();
      case "boolean":
        return value.isJsonPrimitive() && value.getAsJsonPrimitive().isBoolean();
      case "integer": {
        if (!value.isJsonPrimitive() || !value.getAsJsonPrimitive().isNumber()) {
          return false;
        }
        String text = ((JsonPrimitive) value).getAsNumber().toString();
        return text.chars().noneMatch(c -> c == '.' || c == 'e' || c == 'E');
      }
      case "array":
        return value.isJsonArray();
      default:
        return true;
    }
  }
}
