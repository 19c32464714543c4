package dev.quire.examples;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.quire.client.QuireClient;
import dev.quire.client.ToolRunner;
import dev.quire.v1.ToolDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * docs/clients/java.md, "A tool loop": the agent tools bound to a namespace, run for a model.
 * {@link StandInModel} plays the model (deterministic, no network); with a real one, send it
 * the definitions' openai_tool or anthropic_tool shapes and pass its tool calls to the runner.
 */
public final class ToolLoop {
  private ToolLoop() {}

  /** A model's request to run a tool: its name and JSON arguments. */
  record ToolCall(String name, String argumentsJson) {}

  /** Searches, corrects a refused argument from the error's field and bound, reads the best hit. */
  static final class StandInModel {
    private static final Pattern RANGE = Pattern.compile("(\\d+)–(\\d+)");
    private final String question;
    final List<String[]> results = new ArrayList<>(); // {tool name, arguments, result}

    StandInModel(String question) {
      this.question = question;
    }

    /** The next tool call, or null to answer. */
    ToolCall next() {
      if (results.isEmpty()) {
        JsonObject args = new JsonObject();
        args.addProperty("query", question);
        args.addProperty("limit", 50); // more than the policy allows: the error says the bound
        return new ToolCall("search_pages", args.toString());
      }
      String[] last = results.get(results.size() - 1);
      JsonObject body = JsonParser.parseString(last[2]).getAsJsonObject();
      if (body.has("error")) {
        Matcher m = RANGE.matcher(body.has("bound") ? body.get("bound").getAsString() : "");
        if (body.has("field") && body.get("field").getAsString().equals("limit") && m.matches()) {
          JsonObject args = JsonParser.parseString(last[1]).getAsJsonObject();
          args.addProperty("limit", Integer.parseInt(m.group(2)));
          return new ToolCall(last[0], args.toString());
        }
        return null;
      }
      if (last[0].equals("search_pages") && body.getAsJsonArray("hits").size() > 0) {
        JsonObject best = body.getAsJsonArray("hits").get(0).getAsJsonObject();
        JsonObject args = new JsonObject();
        args.add("path", best.get("path"));
        args.add("revision", best.get("revision"));
        args.addProperty("max_chars", 400);
        return new ToolCall("read_page", args.toString());
      }
      return null;
    }

    String answer() {
      for (int i = results.size() - 1; i >= 0; i--) {
        JsonObject body = JsonParser.parseString(results.get(i)[2]).getAsJsonObject();
        if (results.get(i)[0].equals("read_page") && !body.has("error")) {
          String words = String.join(" ", body.get("content").getAsString().trim().split("\\s+"));
          return "From " + body.getAsJsonObject("page").get("path").getAsString() + ": "
              + words.substring(0, Math.min(200, words.length()));
        }
      }
      return "I could not find it.";
    }
  }

  static String ask(QuireClient client, String namespace, String question) {
    // doc:start
    ToolRunner runner = new ToolRunner(client, namespace, null);
    for (ToolDefinition tool : runner.definitions()) {
      System.out.println("tool " + tool.getName()); // tool.getOpenaiTool(), getAnthropicTool()...
    }
    StandInModel model = new StandInModel(question);
    for (int turn = 0; turn < 8; turn++) { // a bound on the loop, as any agent should have
      ToolCall call = model.next();
      if (call == null) {
        break;
      }
      ToolRunner.ToolOutcome outcome = runner.call(call.name(), call.argumentsJson());
      System.out.println(call.name() + call.argumentsJson() + " -> error=" + outcome.isError());
      model.results.add(new String[] {call.name(), call.argumentsJson(), outcome.text()});
    }
    return model.answer();
    // doc:end
  }
}
