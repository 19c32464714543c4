package dev.quire.conformance;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The Java conformance runner: executes tests/conformance/scenarios/*.json against the server
 * the harness started (tests/conformance/README.md). Calls go through generic gRPC calls built
 * from the service descriptors of the generated stubs; client steps go through QuireClient.
 *
 * <pre>
 * java -cp ... dev.quire.conformance.Runner [--scenarios DIR] [-k SUBSTRING] [-v]
 * </pre>
 */
public final class Runner {
  static final Pattern VAR = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_.]*)\\}");

  /** The scenario file itself is wrong (unknown variable, key, call...). */
  static final class ScenarioError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ScenarioError(String message) {
      super(message);
    }
  }

  static final class StepFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StepFailed(String message) {
      super(message);
    }
  }

  static final class Skip extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Skip(String message) {
      super(message);
    }
  }

  final ManagedChannel channel;
  final Map<String, String> keys;
  final Map<String, JsonElement> fixtures;
  final Invoker invoker;

  Runner(String address, Map<String, String> keys, Map<String, JsonElement> fixtures) {
    this.channel = ManagedChannelBuilder.forTarget(address).usePlaintext().maxInboundMessageSize(16 << 20).build();
    this.keys = keys;
    this.fixtures = fixtures;
    this.invoker = new Invoker(this);
  }

  // ------------------------------------------------------------------ variables

  static JsonElement substitute(JsonElement value, Map<String, JsonElement> env) {
    if (value == null || value.isJsonNull()) {
      return value;
    }
    if (value.isJsonPrimitive() && value.getAsJsonPrimitive().isString()) {
      String s = value.getAsString();
      Matcher whole = VAR.matcher(s);
      if (whole.matches()) {
        return lookup(env, whole.group(1)).deepCopy();
      }
      Matcher m = VAR.matcher(s);
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        JsonElement v = lookup(env, m.group(1));
        String text = v.isJsonPrimitive() && v.getAsJsonPrimitive().isString() ? v.getAsString() : v.toString();
        m.appendReplacement(out, Matcher.quoteReplacement(text));
      }
      m.appendTail(out);
      return new JsonPrimitive(out.toString());
    }
    if (value.isJsonArray()) {
      JsonArray out = new JsonArray();
      value.getAsJsonArray().forEach(v -> out.add(substitute(v, env)));
      return out;
    }
    if (value.isJsonObject()) {
      JsonObject out = new JsonObject();
      for (var e : value.getAsJsonObject().entrySet()) {
        out.add(substitute(new JsonPrimitive(e.getKey()), env).getAsString(), substitute(e.getValue(), env));
      }
      return out;
    }
    return value;
  }

  static JsonElement lookup(Map<String, JsonElement> env, String name) {
    JsonElement v = env.get(name);
    if (v == null) {
      throw new ScenarioError("unknown variable ${" + name + "}");
    }
    return v;
  }

  // ------------------------------------------------------------------ checking

  static List<String> check(JsonObject step, Outcome outcome, Map<String, JsonElement> env) {
    JsonObject expect = step.has("expect")
        ? substitute(step.get("expect"), env).getAsJsonObject()
        : JsonParser.parseString("{\"ok\":{}}").getAsJsonObject();
    List<String> problems = new ArrayList<>();
    if (expect.has("error")) {
      JsonObject want = expect.getAsJsonObject("error");
      if (outcome.error == null) {
        problems.add("expected error " + want + ", got ok " + Match.shortText(outcome.ok));
        return problems;
      }
      Outcome.Failure got = outcome.error;
      if (want.has("grpc_code") && !want.get("grpc_code").getAsString().equals(got.grpcCode())) {
        problems.add("grpc_code: expected " + want.get("grpc_code").getAsString() + ", got " + got.grpcCode());
      }
      if (want.has("error_code") && !want.get("error_code").getAsString().equals(got.errorCode())) {
        problems.add("error_code: expected " + want.get("error_code").getAsString() + ", got " + got.errorCode());
      }
      if (want.has("current_revision")) {
        problems.addAll(Match.match(want.get("current_revision"), got.detail().get("currentRevision"), "current_revision"));
      }
      if (want.has("field_violations")) {
        List<String> fields = new ArrayList<>();
        JsonElement list = got.detail().get("fieldViolations");
        if (list != null) {
          list.getAsJsonArray().forEach(v -> fields.add(Match.object(v).has("field") ? v.getAsJsonObject().get("field").getAsString() : ""));
        }
        List<String> wanted = new ArrayList<>();
        want.getAsJsonArray("field_violations").forEach(v -> wanted.add(v.getAsString()));
        fields.sort(null);
        wanted.sort(null);
        if (!fields.equals(wanted)) {
          problems.add("field_violations: expected " + wanted + ", got " + fields);
        }
      }
      if (want.has("retry_after")) {
        boolean has = got.detail().has("retryAfter");
        if (has != want.get("retry_after").getAsBoolean()) {
          problems.add("retry_after: expected set=" + want.get("retry_after") + ", got " + has);
        }
      }
      if (!problems.isEmpty()) {
        problems.add("(message: '" + got.message() + "')");
      }
      return problems;
    }
    if (outcome.error != null) {
      var err = outcome.error;
      problems.add("expected ok, got " + err.grpcCode() + " " + err.errorCode() + ": '" + err.message() + "'");
      return problems;
    }
    return Match.match(expect.has("ok") ? expect.get("ok") : new JsonObject(), outcome.ok, "$");
  }

  // ------------------------------------------------------------------ scenarios

  record Result(String name, String status, String reason, double seconds) {}

  private static final SecureRandom RANDOM = new SecureRandom();

  Result runScenario(JsonObject scenario, boolean verbose) {
    String name = scenario.get("name").getAsString();
    long started = System.nanoTime();
    Set<String> requires = new HashSet<>();
    scenario.getAsJsonArray("requires").forEach(r -> requires.add(r.getAsString()));
    String status = "PASS";
    String reason = "";
    try {
      List<String> missing = new ArrayList<>();
      scenario.getAsJsonArray("fixtures").forEach(f -> {
        if (!fixtures.containsKey(f.getAsString())) {
          missing.add(f.getAsString());
        }
      });
      if (!missing.isEmpty()) {
        throw new Skip("fixture(s) not provided: " + String.join(", ", missing));
      }
      Map<String, JsonElement> env = new HashMap<>(fixtures);
      byte[] id = new byte[4];
      RANDOM.nextBytes(id);
      env.put("run_id", new JsonPrimitive(HexFormat.of().formatHex(id)));
      env.put("scenario", new JsonPrimitive(name));
      if (scenario.has("vars")) {
        for (var v : scenario.getAsJsonObject("vars").entrySet()) {
          env.put(v.getKey(), substitute(v.getValue(), env));
        }
      }
      int index = 0;
      for (JsonElement stepElement : scenario.getAsJsonArray("steps")) {
        JsonObject step = stepElement.getAsJsonObject();
        index++;
        String what = step.has("call") ? step.get("call").getAsString()
            : step.has("client") ? "client " + step.get("client").getAsString() : "?";
        String label = "step " + index + " (" + (step.has("name") ? step.get("name").getAsString() : what) + ")";
        JsonObject until = step.has("until") ? step.getAsJsonObject("until") : null;
        long deadline = System.nanoTime() + (until == null ? 0 : until.get("timeout_ms").getAsLong() * 1_000_000);
        Outcome outcome;
        List<String> problems;
        while (true) {
          outcome = invoker.invoke(step, env);
          if (outcome.error != null && outcome.error.grpcCode().equals("UNIMPLEMENTED") && required(step, requires)
              && !expectsUnimplemented(step, env)) {
            throw new Skip("requires " + (step.has("call") ? step.get("call").getAsString() : String.join(", ", new TreeSet<>(requires))) + " (UNIMPLEMENTED)");
          }
          problems = check(step, outcome, env);
          if (problems.isEmpty() || until == null || System.nanoTime() >= deadline) {
            break;
          }
          Thread.sleep(until.has("interval_ms") ? until.get("interval_ms").getAsLong() : 250);
        }
        if (!problems.isEmpty()) {
          throw new StepFailed(label + ": " + String.join("; ", problems));
        }
        JsonElement doc = outcome.error == null ? outcome.ok : outcome.error.detail();
        if (step.has("save")) {
          for (var s : step.getAsJsonObject("save").entrySet()) {
            JsonElement value = Match.resolve(doc, s.getValue().getAsString());
            if (value == null) {
              throw new StepFailed(label + ": save " + s.getKey() + ": path '" + s.getValue().getAsString() + "' not in response");
            }
            env.put(s.getKey(), value);
          }
        }
        if (verbose) {
          System.out.println("    ok " + label);
        }
      }
    } catch (Skip e) {
      status = "SKIP";
      reason = e.getMessage();
    } catch (StepFailed e) {
      status = "FAIL";
      reason = e.getMessage();
    } catch (ScenarioError e) {
      status = "FAIL";
      reason = "scenario error: " + e.getMessage();
    } catch (Exception e) { // a runner bug must not stop the other scenarios
      status = "FAIL";
      reason = "runner error: " + e.getClass().getSimpleName() + ": " + e.getMessage();
    }
    return new Result(name, status, reason, (System.nanoTime() - started) / 1e9);
  }

  private static boolean required(JsonObject step, Set<String> requires) {
    if (step.has("call")) {
      return requires.contains(step.get("call").getAsString());
    }
    return !requires.isEmpty(); // a client helper calls RPCs the scenario lists
  }

  private static boolean expectsUnimplemented(JsonObject step, Map<String, JsonElement> env) {
    if (!step.has("expect")) {
      return false;
    }
    JsonObject expect = substitute(step.get("expect"), env).getAsJsonObject();
    return expect.has("error") && expect.getAsJsonObject("error").has("grpc_code")
        && expect.getAsJsonObject("error").get("grpc_code").getAsString().equals("UNIMPLEMENTED");
  }

  static List<JsonObject> load(Path directory) throws IOException {
    List<JsonObject> scenarios = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> listing = Files.list(directory)) {
      files = listing.filter(p -> p.toString().endsWith(".json")).sorted().collect(Collectors.toList());
    }
    for (Path path : files) {
      JsonObject doc = JsonParser.parseString(Files.readString(path)).getAsJsonObject();
      JsonArray fileRequires = doc.has("requires") ? doc.getAsJsonArray("requires") : new JsonArray();
      JsonArray fileFixtures = doc.has("fixtures") ? doc.getAsJsonArray("fixtures") : new JsonArray();
      for (JsonElement s : doc.getAsJsonArray("scenarios")) {
        JsonObject merged = s.getAsJsonObject().deepCopy();
        JsonArray requires = fileRequires.deepCopy();
        if (merged.has("requires")) {
          requires.addAll(merged.getAsJsonArray("requires"));
        }
        JsonArray fixtures = fileFixtures.deepCopy();
        if (merged.has("fixtures")) {
          fixtures.addAll(merged.getAsJsonArray("fixtures"));
        }
        merged.add("requires", requires);
        merged.add("fixtures", fixtures);
        scenarios.add(merged);
      }
    }
    Set<String> seen = new HashSet<>();
    Set<String> duplicates = new TreeSet<>();
    for (JsonObject s : scenarios) {
      if (!seen.add(s.get("name").getAsString())) {
        duplicates.add(s.get("name").getAsString());
      }
    }
    if (!duplicates.isEmpty()) {
      throw new ScenarioError("duplicate scenario names: " + duplicates);
    }
    return scenarios;
  }

  static Path defaultScenarios() {
    // Run from clients/java (Maven) or from the repository root (the harness).
    for (String candidate : List.of("../../tests/conformance/scenarios", "tests/conformance/scenarios")) {
      Path p = Paths.get(candidate);
      if (Files.isDirectory(p)) {
        return p;
      }
    }
    return Paths.get("tests/conformance/scenarios");
  }

  public static void main(String[] args) throws Exception {
    Path scenarios = defaultScenarios();
    String filter = "";
    boolean verbose = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--scenarios" -> scenarios = Paths.get(args[++i]);
        case "-k" -> filter = args[++i];
        case "-v", "--verbose" -> verbose = true;
        default -> {
          System.err.println("unknown argument " + args[i]);
          System.exit(2);
        }
      }
    }
    String address = System.getenv("QUIRE_CONFORMANCE_ADDRESS");
    if (address == null || address.isEmpty()) {
      System.out.println("QUIRE_CONFORMANCE_ADDRESS is not set (run through tests.conformance.harness)");
      System.exit(2);
    }
    Map<String, String> keys = new HashMap<>();
    JsonParser.parseString(envOr("QUIRE_CONFORMANCE_KEYS", "{}")).getAsJsonObject().entrySet()
        .forEach(e -> keys.put(e.getKey(), e.getValue().getAsString()));
    Map<String, JsonElement> fixtures = new HashMap<>();
    JsonParser.parseString(envOr("QUIRE_CONFORMANCE_FIXTURES", "{}")).getAsJsonObject().entrySet()
        .forEach(e -> fixtures.put(e.getKey(), e.getValue()));
    Runner runner = new Runner(address, keys, fixtures);
    Map<String, Integer> counts = new HashMap<>(Map.of("PASS", 0, "FAIL", 0, "SKIP", 0));
    try {
      for (JsonObject scenario : load(scenarios)) {
        if (!filter.isEmpty() && !scenario.get("name").getAsString().contains(filter)) {
          continue;
        }
        Result result = runner.runScenario(scenario, verbose);
        counts.merge(result.status(), 1, Integer::sum);
        String line = String.format("%s %s (%.2fs)", result.status(), result.name(), result.seconds());
        if (!result.reason().isEmpty()) {
          line += ": " + result.reason();
        }
        System.out.println(line);
        System.out.flush();
      }
    } finally {
      runner.channel.shutdownNow();
    }
    String summary = counts.get("PASS") + " passed, " + counts.get("FAIL") + " failed";
    if (counts.get("SKIP") > 0) {
      summary += ", " + counts.get("SKIP") + " skipped";
    }
    System.out.println(summary);
    System.out.flush();
    System.exit(counts.get("FAIL") > 0 ? 1 : 0);
  }

  private static String envOr(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isEmpty() ? fallback : v;
  }

}
