package dev.quire.conformance;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.Struct;
import com.google.protobuf.util.JsonFormat;
import dev.quire.client.QuireClient;
import dev.quire.client.QuireException;
import dev.quire.client.Searchable;
import dev.quire.client.UploadItem;
import dev.quire.v1.AdminServiceGrpc;
import dev.quire.v1.ErrorDetail;
import dev.quire.v1.KnowledgeServiceGrpc;
import dev.quire.v1.ListAgentsRequest;
import dev.quire.v1.ListDocumentsRequest;
import dev.quire.v1.ListPagesRequest;
import dev.quire.v1.PagesServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.stub.MetadataUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Runs one step: a generic gRPC call from the service descriptors, or a client helper. */
final class Invoker {
  static final int CHUNK = 1024 * 1024;
  static final long DEFAULT_TIMEOUT_MS = 30_000;
  static final long STREAM_TIMEOUT_MS = 300_000;
  private static final JsonFormat.Printer PRINTER = JsonFormat.printer().omittingInsignificantWhitespace();
  private static final JsonFormat.Parser PARSER = JsonFormat.parser();
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final Runner runner;
  private final Map<String, MethodDescriptor<?, ?>> methods = new HashMap<>();

  Invoker(Runner runner) {
    this.runner = runner;
    for (ServiceDescriptor service : List.of(PagesServiceGrpc.getServiceDescriptor(),
        KnowledgeServiceGrpc.getServiceDescriptor(), AdminServiceGrpc.getServiceDescriptor())) {
      for (MethodDescriptor<?, ?> m : service.getMethods()) {
        String bareService = m.getServiceName().substring(m.getServiceName().lastIndexOf('.') + 1);
        methods.put(bareService + "." + m.getBareMethodName(), m);
      }
    }
  }

  // ------------------------------------------------------------------ JSON ↔ messages

  static JsonElement toJson(MessageOrBuilder message) {
    try {
      return JsonParser.parseString(PRINTER.print(message));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
  }

  static JsonElement expandValues(JsonElement value) {
    if (value != null && value.isJsonObject()) {
      JsonObject o = value.getAsJsonObject();
      if (o.size() == 1) {
        var e = o.entrySet().iterator().next();
        switch (e.getKey()) {
          case "$text":
            return new JsonPrimitive(Base64.getEncoder().encodeToString(e.getValue().getAsString().getBytes(StandardCharsets.UTF_8)));
          case "$base64":
            return e.getValue();
          case "$repeat": {
            JsonObject arg = e.getValue().getAsJsonObject();
            String text = arg.get("text").getAsString().repeat(arg.get("times").getAsInt());
            return new JsonPrimitive(Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8)));
          }
          default:
            break;
        }
      }
      JsonObject out = new JsonObject();
      o.entrySet().forEach(en -> out.add(en.getKey(), expandValues(en.getValue())));
      return out;
    }
    if (value != null && value.isJsonArray()) {
      JsonArray out = new JsonArray();
      value.getAsJsonArray().forEach(v -> out.add(expandValues(v)));
      return out;
    }
    return value;
  }

  @SuppressWarnings("unchecked")
  static <T extends Message> T parse(T prototype, JsonElement body) {
    Message.Builder builder = prototype.newBuilderForType();
    try {
      PARSER.merge(expandValues(body == null ? new JsonObject() : body).toString(), builder);
    } catch (InvalidProtocolBufferException e) {
      throw new Runner.ScenarioError("bad request JSON for " + prototype.getDescriptorForType().getFullName() + ": " + e.getMessage());
    }
    return (T) builder.build();
  }

  /** Data messages over 1 MiB become consecutive 1 MiB messages. */
  static List<Message> splitData(List<Message> messages) {
    List<Message> out = new ArrayList<>();
    for (Message m : messages) {
      var field = m.getDescriptorForType().findFieldByName("data");
      if (field != null && m.hasField(field) && ((ByteString) m.getField(field)).size() > CHUNK) {
        ByteString data = (ByteString) m.getField(field);
        for (int at = 0; at < data.size(); at += CHUNK) {
          out.add(m.newBuilderForType().setField(field, data.substring(at, Math.min(data.size(), at + CHUNK))).build());
        }
      } else {
        out.add(m);
      }
    }
    return out;
  }

  static Outcome.Failure failure(Status status, Metadata trailers) {
    ErrorDetail detail = QuireException.errorDetail(trailers);
    JsonObject detailJson = detail == null ? new JsonObject() : toJson(detail).getAsJsonObject();
    String code = detailJson.has("code") ? detailJson.get("code").getAsString() : "ERROR_CODE_UNSPECIFIED";
    return new Outcome.Failure(status.getCode().name(), code, detailJson,
        status.getDescription() == null ? "" : status.getDescription());
  }

  // ------------------------------------------------------------------ calls

  private String token(JsonObject step, Map<String, JsonElement> env) {
    if (step.has("bearer")) {
      return Runner.substitute(step.get("bearer"), env).getAsString();
    }
    if (!step.has("key")) {
      throw new Runner.ScenarioError("step has neither key nor bearer");
    }
    String key = step.get("key").getAsString();
    if (key.equals("none")) {
      return null;
    }
    if (!runner.keys.containsKey(key)) {
      throw new Runner.ScenarioError("unknown key '" + key + "'");
    }
    return runner.keys.get(key);
  }

  private Channel channel(String token) {
    if (token == null) {
      return runner.channel;
    }
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, "Bearer " + token);
    return ClientInterceptors.intercept(runner.channel, MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  Outcome invoke(JsonObject step, Map<String, JsonElement> env) throws InterruptedException {
    if (step.has("client")) {
      return new Helpers(step, env).run();
    }
    String call = step.get("call").getAsString();
    MethodDescriptor<?, ?> method = methods.get(call);
    if (method == null) {
      throw new Runner.ScenarioError("unknown call '" + call + "' (want Service.Rpc)");
    }
    return invokeCall(method, step, env);
  }

  @SuppressWarnings("unchecked")
  private <Req extends Message, Resp extends Message> Outcome invokeCall(
      MethodDescriptor<?, ?> raw, JsonObject step, Map<String, JsonElement> env) throws InterruptedException {
    MethodDescriptor<Req, Resp> method = (MethodDescriptor<Req, Resp>) raw;
    Req prototype = (Req) ((MethodDescriptor.PrototypeMarshaller<Req>) method.getRequestMarshaller()).getMessagePrototype();
    boolean clientStreams = method.getType() == MethodDescriptor.MethodType.CLIENT_STREAMING
        || method.getType() == MethodDescriptor.MethodType.BIDI_STREAMING;
    boolean serverStreams = method.getType() == MethodDescriptor.MethodType.SERVER_STREAMING
        || method.getType() == MethodDescriptor.MethodType.BIDI_STREAMING;
    long timeoutMs = step.has("timeout_ms") ? step.get("timeout_ms").getAsLong()
        : (clientStreams || serverStreams) ? STREAM_TIMEOUT_MS : DEFAULT_TIMEOUT_MS;
    List<Message> requests = new ArrayList<>();
    if (clientStreams) {
      for (JsonElement m : Runner.substitute(step.get("stream"), env).getAsJsonArray()) {
        requests.add(parse(prototype, m));
      }
      requests = splitData(requests);
    } else {
      requests.add(parse(prototype, Runner.substitute(step.has("request") ? step.get("request") : new JsonObject(), env)));
    }
    Channel channel = channel(token(step, env));
    ClientCall<Req, Resp> call = channel.newCall(method, CallOptions.DEFAULT.withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS));
    LinkedBlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(Resp message) {
        inbox.add(message);
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        inbox.add(new Object[] {status, trailers});
      }
    }, new Metadata());
    call.request(Integer.MAX_VALUE);
    for (Message m : requests) {
      call.sendMessage((Req) m);
    }
    boolean bidi = method.getType() == MethodDescriptor.MethodType.BIDI_STREAMING;
    if (!bidi) {
      call.halfClose(); // the request side of a bidi call stays open until the server ends it
    }
    JsonObject collect = step.has("collect") ? step.getAsJsonObject("collect") : new JsonObject();
    Integer maxMessages = collect.has("max_messages") ? collect.get("max_messages").getAsInt() : null;
    Integer cancelAfter = step.has("cancel_after") ? step.get("cancel_after").getAsInt() : null;
    long collectDeadline = collect.has("timeout_ms") ? System.nanoTime() + collect.get("timeout_ms").getAsLong() * 1_000_000 : Long.MAX_VALUE;
    JsonArray messages = new JsonArray();
    boolean cancelled = false;
    try {
      while (true) {
        Object item = inbox.poll(Math.max(0, collectDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (item == null) { // the collect timeout: the runner stops the watch, not an error
          call.cancel("collect timeout", null);
          cancelled = true;
          break;
        }
        if (item instanceof Object[]) {
          Object[] end = (Object[]) item;
          Status status = (Status) end[0];
          if (!status.isOk()) {
            return Outcome.failed(failure(status, (Metadata) end[1]));
          }
          break;
        }
        JsonObject body = toJson((Message) item).getAsJsonObject();
        messages.add(body);
        if (!serverStreams) {
          continue;
        }
        if (body.has("discoveryCheck")) {
          if (!step.has("discovery_decision") || !bidi) {
            call.cancel("unexpected discoveryCheck", null);
            throw new Runner.StepFailed("unexpected discoveryCheck (no discovery_decision)");
          }
          JsonObject decision = JsonParser.parseString("{\"decision\":{\"accept\":" + step.get("discovery_decision").getAsBoolean() + "}}").getAsJsonObject();
          call.sendMessage(parse(prototype, decision));
        }
        if ((cancelAfter != null && messages.size() >= cancelAfter) || (maxMessages != null && messages.size() >= maxMessages)) {
          call.cancel("stopped by the runner", null);
          cancelled = true;
          break;
        }
      }
    } finally {
      if (bidi && !cancelled) {
        call.cancel("step done", null);
      }
    }
    if (!serverStreams) {
      return Outcome.ok(messages.size() > 0 ? messages.get(0) : new JsonObject());
    }
    JsonObject out = new JsonObject();
    out.add("messages", messages);
    out.add("last", messages.size() > 0 ? messages.get(messages.size() - 1) : new JsonObject());
    out.addProperty("count", messages.size());
    out.addProperty("cancelled", cancelled);
    return Outcome.ok(out);
  }

  // ------------------------------------------------------------------ client steps

  /** A step that runs a helper of the Java client ({@code "client": name, "args": {...}}). */
  private final class Helpers {
    private final JsonObject step;
    private final JsonObject args;

    Helpers(JsonObject step, Map<String, JsonElement> env) {
      this.step = step;
      this.args = step.has("args") ? Runner.substitute(step.get("args"), env).getAsJsonObject() : new JsonObject();
      this.token = token(step, env);
    }

    private final String token;

    Outcome run() {
      String name = step.get("client").getAsString();
      try (QuireClient client = QuireClient.builder(runner.channel).apiKey(token).build()) {
        QuireClient bounded = step.has("timeout_ms") ? client.withTimeout(Duration.ofMillis(step.get("timeout_ms").getAsLong())) : client;
        switch (name) {
          case "wait_until_searchable":
            return Outcome.ok(waitUntilSearchable(bounded));
          case "iterate":
            return Outcome.ok(iterate(bounded));
          case "upload_documents":
            return Outcome.ok(uploadDocuments(bounded));
          default:
            throw new Runner.ScenarioError("unknown client helper '" + name + "'");
        }
      } catch (QuireException e) {
        Throwable cause = e.getCause();
        if (cause instanceof io.grpc.StatusRuntimeException) {
          var s = (io.grpc.StatusRuntimeException) cause;
          return Outcome.failed(failure(s.getStatus(), s.getTrailers()));
        }
        JsonObject detail = toJson(e.detail()).getAsJsonObject();
        return Outcome.failed(new Outcome.Failure(e.grpcCode().name(), e.code().name(), detail, e.detail().getMessage()));
      }
    }

    private JsonElement waitUntilSearchable(QuireClient client) {
      Duration timeout = Duration.ofMillis(args.has("timeout_ms") ? args.get("timeout_ms").getAsLong() : 60_000);
      Searchable.Result result;
      if (args.has("document_ids")) {
        List<String> ids = new ArrayList<>();
        args.getAsJsonArray("document_ids").forEach(v -> ids.add(v.getAsString()));
        result = client.waitUntilSearchable(ids, timeout);
      } else {
        result = client.waitUntilSearchable(args.get("collection_id").getAsString(), timeout);
      }
      JsonArray outcomes = new JsonArray();
      for (Searchable.DocumentOutcome o : result.outcomes()) {
        JsonObject item = new JsonObject();
        item.addProperty("documentId", o.documentId());
        item.addProperty("outcome", o.outcome().name());
        if (!o.reason().isEmpty()) {
          item.addProperty("reason", o.reason());
        }
        outcomes.add(item);
      }
      JsonObject out = new JsonObject();
      out.add("outcomes", outcomes);
      out.addProperty("complete", result.complete());
      return out;
    }

    private JsonElement iterate(QuireClient client) {
      String list = args.get("list").getAsString();
      JsonElement request = args.has("request") ? args.get("request") : new JsonObject();
      int pageSize = args.has("page_size") ? args.get("page_size").getAsInt() : 0;
      Iterable<? extends MessageOrBuilder> items;
      switch (list) {
        case "collections" -> items = client.collections();
        case "namespaces" -> items = client.namespaces();
        case "documents" -> items = client.documents(parse(ListDocumentsRequest.getDefaultInstance(), request), pageSize);
        case "agents" -> items = client.agents(parse(ListAgentsRequest.getDefaultInstance(), request), pageSize);
        case "pages" -> items = client.pages(parse(ListPagesRequest.getDefaultInstance(), request), pageSize);
        default -> throw new Runner.ScenarioError("unknown list '" + list + "'");
      }
      JsonArray out = new JsonArray();
      for (MessageOrBuilder item : items) {
        out.add(toJson(item));
      }
      JsonObject result = new JsonObject();
      result.add("items", out);
      result.addProperty("count", out.size());
      return result;
    }

    private JsonElement uploadDocuments(QuireClient client) {
      List<UploadItem> items = new ArrayList<>();
      for (JsonElement d : args.getAsJsonArray("documents")) {
        JsonObject doc = d.getAsJsonObject();
        byte[] data = doc.has("text") ? doc.get("text").getAsString().getBytes(StandardCharsets.UTF_8) : new byte[0];
        UploadItem item = UploadItem.of(doc.get("fileName").getAsString(), data);
        if (doc.has("externalKey")) {
          item = item.withExternalKey(doc.get("externalKey").getAsString());
        }
        if (doc.has("metadata")) {
          item = item.withMetadata(parse(Struct.getDefaultInstance(), doc.get("metadata")));
        }
        if (doc.has("mimeType")) {
          item = new UploadItem(item.fileName(), item.data(), item.externalKey(), item.metadata(), doc.get("mimeType").getAsString());
        }
        items.add(item);
      }
      return toJson(client.uploadDocuments(args.get("collection_id").getAsString(), items));
    }
  }
}
