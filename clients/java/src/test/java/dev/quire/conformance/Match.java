package dev.quire.conformance;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Expectation patterns (tests/conformance/README.md, section 5) over proto3 JSON. An absent
 * value is Java null.
 */
final class Match {
  private Match() {}

  static boolean isDefault(JsonElement v) {
    if (v == null || v.isJsonNull()) {
      return true;
    }
    if (v.isJsonArray()) {
      return v.getAsJsonArray().isEmpty();
    }
    if (v.isJsonObject()) {
      return v.getAsJsonObject().isEmpty();
    }
    JsonPrimitive p = v.getAsJsonPrimitive();
    if (p.isBoolean()) {
      return !p.getAsBoolean();
    }
    if (p.isNumber()) {
      return p.getAsDouble() == 0;
    }
    String s = p.getAsString();
    return s.isEmpty() || s.equals("0") || s.endsWith("_UNSPECIFIED");
  }

  static Double number(JsonElement v) {
    if (v == null || !v.isJsonPrimitive()) {
      return null;
    }
    JsonPrimitive p = v.getAsJsonPrimitive();
    if (p.isBoolean()) {
      return null;
    }
    if (p.isNumber()) {
      return p.getAsDouble();
    }
    try {
      return Double.parseDouble(p.getAsString());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  static boolean scalarEqual(JsonElement expected, JsonElement actual) {
    if (actual == null) {
      return isDefault(expected);
    }
    if (expected == null || expected.isJsonNull()) {
      return actual.isJsonNull();
    }
    if (!expected.isJsonPrimitive() || !actual.isJsonPrimitive()) {
      return expected.equals(actual);
    }
    JsonPrimitive e = expected.getAsJsonPrimitive();
    JsonPrimitive a = actual.getAsJsonPrimitive();
    if (e.isBoolean() || a.isBoolean()) {
      return e.isBoolean() && a.isBoolean() && e.getAsBoolean() == a.getAsBoolean();
    }
    if (e.isString() && a.isString()) {
      return e.getAsString().equals(a.getAsString());
    }
    Double x = number(e);
    Double y = number(a);
    return x != null && y != null && (x.equals(y) || x.doubleValue() == y.doubleValue());
  }

  static String shortText(JsonElement v) {
    String text = v == null ? "<absent>" : v.toString();
    return text.length() <= 300 ? text : text.substring(0, 300) + "...";
  }

  static boolean isOperator(JsonElement pattern) {
    if (!pattern.isJsonObject() || pattern.getAsJsonObject().isEmpty()) {
      return false;
    }
    return pattern.getAsJsonObject().keySet().stream().allMatch(k -> k.startsWith("$"));
  }

  static List<String> match(JsonElement expected, JsonElement actual, String where) {
    List<String> problems = new ArrayList<>();
    if (expected != null && isOperator(expected)) {
      for (Map.Entry<String, JsonElement> op : expected.getAsJsonObject().entrySet()) {
        problems.addAll(operator(op.getKey(), op.getValue(), actual, where));
      }
      return problems;
    }
    if (expected != null && expected.isJsonObject()) {
      if (actual == null || !actual.isJsonObject()) {
        problems.add(where + ": expected an object, got " + shortText(actual));
        return problems;
      }
      for (Map.Entry<String, JsonElement> e : expected.getAsJsonObject().entrySet()) {
        problems.addAll(match(e.getValue(), actual.getAsJsonObject().get(e.getKey()), where + "." + e.getKey()));
      }
      return problems;
    }
    if (expected != null && expected.isJsonArray()) {
      JsonArray want = expected.getAsJsonArray();
      JsonElement items = actual == null ? new JsonArray() : actual;
      if (!items.isJsonArray() || items.getAsJsonArray().size() != want.size()) {
        problems.add(where + ": expected " + want.size() + " items, got " + shortText(actual));
        return problems;
      }
      for (int i = 0; i < want.size(); i++) {
        problems.addAll(match(want.get(i), items.getAsJsonArray().get(i), where + "." + i));
      }
      return problems;
    }
    if (!scalarEqual(expected, actual)) {
      problems.add(where + ": expected " + shortText(expected) + ", got " + shortText(actual));
    }
    return problems;
  }

  private static List<String> operator(String op, JsonElement arg, JsonElement actual, String where) {
    JsonElement items = actual == null ? new JsonArray() : actual;
    switch (op) {
      case "$len": {
        int n = -1;
        if (items.isJsonArray()) {
          n = items.getAsJsonArray().size();
        } else if (items.isJsonPrimitive() && items.getAsJsonPrimitive().isString()) {
          n = items.getAsString().codePointCount(0, items.getAsString().length());
        }
        return n == arg.getAsInt() ? List.of() : List.of(where + ": expected length " + arg + ", got " + shortText(actual));
      }
      case "$contains":
      case "$not_contains":
      case "$each": {
        if (!items.isJsonArray()) {
          return List.of(where + ": expected a list, got " + shortText(actual));
        }
        int hits = 0;
        int size = items.getAsJsonArray().size();
        for (JsonElement item : items.getAsJsonArray()) {
          if (match(arg, item, where).isEmpty()) {
            hits++;
          }
        }
        if (op.equals("$contains") && hits == 0) {
          return List.of(where + ": no element matches " + shortText(arg) + " in " + shortText(actual));
        }
        if (op.equals("$not_contains") && hits > 0) {
          return List.of(where + ": an element matches " + shortText(arg));
        }
        if (op.equals("$each") && hits != size) {
          return List.of(where + ": not every element matches " + shortText(arg));
        }
        return List.of();
      }
      case "$nonempty": {
        boolean empty = isDefault(actual);
        return empty != arg.getAsBoolean() ? List.of() : List.of(where + ": $nonempty " + arg + ", got " + shortText(actual));
      }
      case "$absent": {
        boolean empty = isDefault(actual);
        return empty == arg.getAsBoolean() ? List.of() : List.of(where + ": $absent " + arg + ", got " + shortText(actual));
      }
      case "$ne":
        return scalarEqual(arg, actual) ? List.of(where + ": expected != " + shortText(arg)) : List.of();
      case "$substring": {
        boolean ok = actual != null && actual.isJsonPrimitive() && actual.getAsJsonPrimitive().isString()
            && actual.getAsString().contains(arg.getAsString());
        return ok ? List.of() : List.of(where + ": " + shortText(arg) + " not in " + shortText(actual));
      }
      case "$gte":
      case "$lte":
      case "$gt":
      case "$lt": {
        Double value = actual == null ? Double.valueOf(0) : number(actual);
        if (value == null) {
          return List.of(where + ": expected a number, got " + shortText(actual));
        }
        double bound = arg.getAsDouble();
        boolean ok = switch (op) {
          case "$gte" -> value >= bound;
          case "$lte" -> value <= bound;
          case "$gt" -> value > bound;
          default -> value < bound;
        };
        return ok ? List.of() : List.of(where + ": expected " + op + " " + arg + ", got " + shortText(actual));
      }
      default:
        throw new Runner.ScenarioError("unknown operator " + op);
    }
  }

  /** The value at a dotted path (numeric segments index lists), or null. */
  static JsonElement resolve(JsonElement doc, String path) {
    JsonElement current = doc;
    for (String part : path.split("\\.")) {
      if (current == null) {
        return null;
      }
      if (current.isJsonArray() && part.chars().allMatch(Character::isDigit)) {
        int i = Integer.parseInt(part);
        current = i < current.getAsJsonArray().size() ? current.getAsJsonArray().get(i) : null;
      } else if (current.isJsonObject()) {
        current = current.getAsJsonObject().get(part);
      } else {
        return null;
      }
    }
    return current;
  }

  static JsonObject object(JsonElement v) {
    return v != null && v.isJsonObject() ? v.getAsJsonObject() : new JsonObject();
  }
}
