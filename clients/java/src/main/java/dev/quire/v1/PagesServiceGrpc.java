package dev.quire.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Published pages: documentation sites synchronised into namespaces of the caller's
 * organisation, then searched, read, listed, grepped and explored. Every call names a
 * namespace (1–128 characters of [A-Za-z0-9._-]).
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class PagesServiceGrpc {

  private PagesServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "quire.v1.PagesService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.SyncPagesRequest,
      dev.quire.v1.SyncPagesResponse> getSyncPagesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SyncPages",
      requestType = dev.quire.v1.SyncPagesRequest.class,
      responseType = dev.quire.v1.SyncPagesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
  public static io.grpc.MethodDescriptor<dev.quire.v1.SyncPagesRequest,
      dev.quire.v1.SyncPagesResponse> getSyncPagesMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.SyncPagesRequest, dev.quire.v1.SyncPagesResponse> getSyncPagesMethod;
    if ((getSyncPagesMethod = PagesServiceGrpc.getSyncPagesMethod) == null) {
      synchronized (PagesServiceGrpc.class) {
        if ((getSyncPagesMethod = PagesServiceGrpc.getSyncPagesMethod) == null) {
          PagesServiceGrpc.getSyncPagesMethod = getSyncPagesMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.SyncPagesRequest, dev.quire.v1.SyncPagesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SyncPages"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.SyncPagesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.SyncPagesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PagesServiceMethodDescriptorSupplier("SyncPages"))
              .build();
        }
      }
    }
    return getSyncPagesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.SearchPagesRequest,
      dev.quire.v1.SearchPagesResponse> getSearchPagesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SearchPages",
      requestType = dev.quire.v1.SearchPagesRequest.class,
      responseType = dev.quire.v1.SearchPagesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.SearchPagesRequest,
      dev.quire.v1.SearchPagesResponse> getSearchPagesMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.SearchPagesRequest, dev.quire.v1.SearchPagesResponse> getSearchPagesMethod;
    if ((getSearchPagesMethod = PagesServiceGrpc.getSearchPagesMethod) == null) {
      synchronized (PagesServiceGrpc.class) {
        if ((getSearchPagesMethod = PagesServiceGrpc.getSearchPagesMethod) == null) {
          PagesServiceGrpc.getSearchPagesMethod = getSearchPagesMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.SearchPagesRequest, dev.quire.v1.SearchPagesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SearchPages"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.SearchPagesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.SearchPagesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PagesServiceMethodDescriptorSupplier("SearchPages"))
              .build();
        }
      }
    }
    return getSearchPagesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.ReadPageRequest,
      dev.quire.v1.ReadPageResponse> getReadPageMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReadPage",
      requestType = dev.quire.v1.ReadPageRequest.class,
      responseType = dev.quire.v1.ReadPageResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.ReadPageRequest,
      dev.quire.v1.ReadPageResponse> getReadPageMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.ReadPageRequest, dev.quire.v1.ReadPageResponse> getReadPageMethod;
    if ((getReadPageMethod = PagesServiceGrpc.getReadPageMethod) == null) {
      synchronized (PagesServiceGrpc.class) {
        if ((getReadPageMethod = PagesServiceGrpc.getReadPageMethod) == null) {
          PagesServiceGrpc.getReadPageMethod = getReadPageMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.ReadPageRequest, dev.quire.v1.ReadPageResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReadPage"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ReadPageRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ReadPageResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PagesServiceMethodDescriptorSupplier("ReadPage"))
              .build();
        }
      }
    }
    return getReadPageMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.ListPagesRequest,
      dev.quire.v1.ListPagesResponse> getListPagesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListPages",
      requestType = dev.quire.v1.ListPagesRequest.class,
      responseType = dev.quire.v1.ListPagesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.ListPagesRequest,
      dev.quire.v1.ListPagesResponse> getListPagesMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.ListPagesRequest, dev.quire.v1.ListPagesResponse> getListPagesMethod;
    if ((getListPagesMethod = PagesServiceGrpc.getListPagesMethod) == null) {
      synchronized (PagesServiceGrpc.class) {
        if ((getListPagesMethod = PagesServiceGrpc.getListPagesMethod) == null) {
          PagesServiceGrpc.getListPagesMethod = getListPagesMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.ListPagesRequest, dev.quire.v1.ListPagesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListPages"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ListPagesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ListPagesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PagesServiceMethodDescriptorSupplier("ListPages"))
              .build();
        }
      }
    }
    return getListPagesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.GrepPagesRequest,
      dev.quire.v1.GrepPagesResponse> getGrepPagesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GrepPages",
      requestType = dev.quire.v1.GrepPagesRequest.class,
      responseType = dev.quire.v1.GrepPagesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.GrepPagesRequest,
      dev.quire.v1.GrepPagesResponse> getGrepPagesMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.GrepPagesRequest, dev.quire.v1.GrepPagesResponse> getGrepPagesMethod;
    if ((getGrepPagesMethod = PagesServiceGrpc.getGrepPagesMethod) == null) {
      synchronized (PagesServiceGrpc.class) {
        if ((getGrepPagesMethod = PagesServiceGrpc.getGrepPagesMethod) == null) {
          PagesServiceGrpc.getGrepPagesMethod = getGrepPagesMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.GrepPagesRequest, dev.quire.v1.GrepPagesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GrepPages"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GrepPagesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GrepPagesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PagesServiceMethodDescriptorSupplier("GrepPages"))
              .build();
        }
      }
    }
    return getGrepPagesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.RunCommandRequest,
      dev.quire.v1.RunCommandResponse> getRunCommandMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RunCommand",
      requestType = dev.quire.v1.RunCommandRequest.class,
      responseType = dev.quire.v1.RunCommandResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.RunCommandRequest,
      dev.quire.v1.RunCommandResponse> getRunCommandMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.RunCommandRequest, dev.quire.v1.RunCommandResponse> getRunCommandMethod;
    if ((getRunCommandMethod = PagesServiceGrpc.getRunCommandMethod) == null) {
      synchronized (PagesServiceGrpc.class) {
        if ((getRunCommandMethod = PagesServiceGrpc.getRunCommandMethod) == null) {
          PagesServiceGrpc.getRunCommandMethod = getRunCommandMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.RunCommandRequest, dev.quire.v1.RunCommandResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RunCommand"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.RunCommandRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.RunCommandResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PagesServiceMethodDescriptorSupplier("RunCommand"))
              .build();
        }
      }
    }
    return getRunCommandMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.DescribeToolsRequest,
      dev.quire.v1.DescribeToolsResponse> getDescribeToolsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DescribeTools",
      requestType = dev.quire.v1.DescribeToolsRequest.class,
      responseType = dev.quire.v1.DescribeToolsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.DescribeToolsRequest,
      dev.quire.v1.DescribeToolsResponse> getDescribeToolsMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.DescribeToolsRequest, dev.quire.v1.DescribeToolsResponse> getDescribeToolsMethod;
    if ((getDescribeToolsMethod = PagesServiceGrpc.getDescribeToolsMethod) == null) {
      synchronized (PagesServiceGrpc.class) {
        if ((getDescribeToolsMethod = PagesServiceGrpc.getDescribeToolsMethod) == null) {
          PagesServiceGrpc.getDescribeToolsMethod = getDescribeToolsMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.DescribeToolsRequest, dev.quire.v1.DescribeToolsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DescribeTools"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.DescribeToolsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.DescribeToolsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PagesServiceMethodDescriptorSupplier("DescribeTools"))
              .build();
        }
      }
    }
    return getDescribeToolsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.GetSyncReportRequest,
      dev.quire.v1.GetSyncReportResponse> getGetSyncReportMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetSyncReport",
      requestType = dev.quire.v1.GetSyncReportRequest.class,
      responseType = dev.quire.v1.GetSyncReportResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.GetSyncReportRequest,
      dev.quire.v1.GetSyncReportResponse> getGetSyncReportMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.GetSyncReportRequest, dev.quire.v1.GetSyncReportResponse> getGetSyncReportMethod;
    if ((getGetSyncReportMethod = PagesServiceGrpc.getGetSyncReportMethod) == null) {
      synchronized (PagesServiceGrpc.class) {
        if ((getGetSyncReportMethod = PagesServiceGrpc.getGetSyncReportMethod) == null) {
          PagesServiceGrpc.getGetSyncReportMethod = getGetSyncReportMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.GetSyncReportRequest, dev.quire.v1.GetSyncReportResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetSyncReport"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GetSyncReportRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GetSyncReportResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PagesServiceMethodDescriptorSupplier("GetSyncReport"))
              .build();
        }
      }
    }
    return getGetSyncReportMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.ListNamespacesRequest,
      dev.quire.v1.ListNamespacesResponse> getListNamespacesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListNamespaces",
      requestType = dev.quire.v1.ListNamespacesRequest.class,
      responseType = dev.quire.v1.ListNamespacesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.ListNamespacesRequest,
      dev.quire.v1.ListNamespacesResponse> getListNamespacesMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.ListNamespacesRequest, dev.quire.v1.ListNamespacesResponse> getListNamespacesMethod;
    if ((getListNamespacesMethod = PagesServiceGrpc.getListNamespacesMethod) == null) {
      synchronized (PagesServiceGrpc.class) {
        if ((getListNamespacesMethod = PagesServiceGrpc.getListNamespacesMethod) == null) {
          PagesServiceGrpc.getListNamespacesMethod = getListNamespacesMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.ListNamespacesRequest, dev.quire.v1.ListNamespacesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListNamespaces"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ListNamespacesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ListNamespacesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PagesServiceMethodDescriptorSupplier("ListNamespaces"))
              .build();
        }
      }
    }
    return getListNamespacesMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static PagesServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<PagesServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<PagesServiceStub>() {
        @java.lang.Override
        public PagesServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new PagesServiceStub(channel, callOptions);
        }
      };
    return PagesServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static PagesServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<PagesServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<PagesServiceBlockingV2Stub>() {
        @java.lang.Override
        public PagesServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new PagesServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return PagesServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static PagesServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<PagesServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<PagesServiceBlockingStub>() {
        @java.lang.Override
        public PagesServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new PagesServiceBlockingStub(channel, callOptions);
        }
      };
    return PagesServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static PagesServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<PagesServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<PagesServiceFutureStub>() {
        @java.lang.Override
        public PagesServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new PagesServiceFutureStub(channel, callOptions);
        }
      };
    return PagesServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Published pages: documentation sites synchronised into namespaces of the caller's
   * organisation, then searched, read, listed, grepped and explored. Every call names a
   * namespace (1–128 characters of [A-Za-z0-9._-]).
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Synchronises a site into a namespace. The first client message is a `start`; when it sets
     * validate_discovery the server answers with a DiscoveryCheck and waits (bounded) for a
     * `decision`. The server streams progress and ends with exactly one SyncReport. Closing the
     * stream cancels cooperatively: the page in flight finishes, nothing is pruned.
     * </pre>
     */
    default io.grpc.stub.StreamObserver<dev.quire.v1.SyncPagesRequest> syncPages(
        io.grpc.stub.StreamObserver<dev.quire.v1.SyncPagesResponse> responseObserver) {
      return io.grpc.stub.ServerCalls.asyncUnimplementedStreamingCall(getSyncPagesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Hybrid search over the query and up to 3 alternative phrasings, all read from one
     * snapshot: per phrasing a full-text (BM25) and a vector arm fused by a weighted sum of their
     * per-query normalised (z-score) scores, then the phrasings by a weighted sum of their
     * min-max normalised scores (each alternative weighing half the query). At most 3 hits per page. The canonical JSON of the whole result
     * stays within max_output_bytes by dropping hits from the tail.
     * </pre>
     */
    default void searchPages(dev.quire.v1.SearchPagesRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.SearchPagesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSearchPagesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Reads a slice of a page in Unicode code points, optionally pinned to a revision
     * (PAGE_CHANGED when stale).
     * </pre>
     */
    default void readPage(dev.quire.v1.ReadPageRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ReadPageResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReadPageMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists pages in path order under a prefix. Cursors are bound to the namespace revision.
     * </pre>
     */
    default void listPages(dev.quire.v1.ListPagesRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ListPagesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListPagesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Literal substring search, line by line, bounded by limit, output budget and deadline.
     * </pre>
     */
    default void grepPages(dev.quire.v1.GrepPagesRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GrepPagesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGrepPagesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Runs one bounded read-only command (ls, tree, find, cat, head, tail, wc, grep, rg) over the
     * namespace. Grammar errors come back as text in the result; service errors as typed errors.
     * </pre>
     */
    default void runCommand(dev.quire.v1.RunCommandRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.RunCommandResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRunCommandMethod(), responseObserver);
    }

    /**
     * <pre>
     * Tool definitions for agent runtimes: JSON Schema plus the MCP, OpenAI and Anthropic
     * shapes, with the caller's effective bounds, optionally bound to a namespace and an agent.
     * </pre>
     */
    default void describeTools(dev.quire.v1.DescribeToolsRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.DescribeToolsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDescribeToolsMethod(), responseObserver);
    }

    /**
     * <pre>
     * The last stored SyncReport of a namespace.
     * </pre>
     */
    default void getSyncReport(dev.quire.v1.GetSyncReportRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GetSyncReportResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetSyncReportMethod(), responseObserver);
    }

    /**
     * <pre>
     * Namespaces of the caller's organisation, by name.
     * </pre>
     */
    default void listNamespaces(dev.quire.v1.ListNamespacesRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ListNamespacesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListNamespacesMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service PagesService.
   * <pre>
   * Published pages: documentation sites synchronised into namespaces of the caller's
   * organisation, then searched, read, listed, grepped and explored. Every call names a
   * namespace (1–128 characters of [A-Za-z0-9._-]).
   * </pre>
   */
  public static abstract class PagesServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return PagesServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service PagesService.
   * <pre>
   * Published pages: documentation sites synchronised into namespaces of the caller's
   * organisation, then searched, read, listed, grepped and explored. Every call names a
   * namespace (1–128 characters of [A-Za-z0-9._-]).
   * </pre>
   */
  public static final class PagesServiceStub
      extends io.grpc.stub.AbstractAsyncStub<PagesServiceStub> {
    private PagesServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected PagesServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new PagesServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Synchronises a site into a namespace. The first client message is a `start`; when it sets
     * validate_discovery the server answers with a DiscoveryCheck and waits (bounded) for a
     * `decision`. The server streams progress and ends with exactly one SyncReport. Closing the
     * stream cancels cooperatively: the page in flight finishes, nothing is pruned.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<dev.quire.v1.SyncPagesRequest> syncPages(
        io.grpc.stub.StreamObserver<dev.quire.v1.SyncPagesResponse> responseObserver) {
      return io.grpc.stub.ClientCalls.asyncBidiStreamingCall(
          getChannel().newCall(getSyncPagesMethod(), getCallOptions()), responseObserver);
    }

    /**
     * <pre>
     * Hybrid search over the query and up to 3 alternative phrasings, all read from one
     * snapshot: per phrasing a full-text (BM25) and a vector arm fused by a weighted sum of their
     * per-query normalised (z-score) scores, then the phrasings by a weighted sum of their
     * min-max normalised scores (each alternative weighing half the query). At most 3 hits per page. The canonical JSON of the whole result
     * stays within max_output_bytes by dropping hits from the tail.
     * </pre>
     */
    public void searchPages(dev.quire.v1.SearchPagesRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.SearchPagesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSearchPagesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Reads a slice of a page in Unicode code points, optionally pinned to a revision
     * (PAGE_CHANGED when stale).
     * </pre>
     */
    public void readPage(dev.quire.v1.ReadPageRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ReadPageResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReadPageMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists pages in path order under a prefix. Cursors are bound to the namespace revision.
     * </pre>
     */
    public void listPages(dev.quire.v1.ListPagesRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ListPagesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListPagesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Literal substring search, line by line, bounded by limit, output budget and deadline.
     * </pre>
     */
    public void grepPages(dev.quire.v1.GrepPagesRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GrepPagesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGrepPagesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Runs one bounded read-only command (ls, tree, find, cat, head, tail, wc, grep, rg) over the
     * namespace. Grammar errors come back as text in the result; service errors as typed errors.
     * </pre>
     */
    public void runCommand(dev.quire.v1.RunCommandRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.RunCommandResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRunCommandMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Tool definitions for agent runtimes: JSON Schema plus the MCP, OpenAI and Anthropic
     * shapes, with the caller's effective bounds, optionally bound to a namespace and an agent.
     * </pre>
     */
    public void describeTools(dev.quire.v1.DescribeToolsRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.DescribeToolsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDescribeToolsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The last stored SyncReport of a namespace.
     * </pre>
     */
    public void getSyncReport(dev.quire.v1.GetSyncReportRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GetSyncReportResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetSyncReportMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Namespaces of the caller's organisation, by name.
     * </pre>
     */
    public void listNamespaces(dev.quire.v1.ListNamespacesRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ListNamespacesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListNamespacesMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service PagesService.
   * <pre>
   * Published pages: documentation sites synchronised into namespaces of the caller's
   * organisation, then searched, read, listed, grepped and explored. Every call names a
   * namespace (1–128 characters of [A-Za-z0-9._-]).
   * </pre>
   */
  public static final class PagesServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<PagesServiceBlockingV2Stub> {
    private PagesServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected PagesServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new PagesServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Synchronises a site into a namespace. The first client message is a `start`; when it sets
     * validate_discovery the server answers with a DiscoveryCheck and waits (bounded) for a
     * `decision`. The server streams progress and ends with exactly one SyncReport. Closing the
     * stream cancels cooperatively: the page in flight finishes, nothing is pruned.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<dev.quire.v1.SyncPagesRequest, dev.quire.v1.SyncPagesResponse>
        syncPages() {
      return io.grpc.stub.ClientCalls.blockingBidiStreamingCall(
          getChannel(), getSyncPagesMethod(), getCallOptions());
    }

    /**
     * <pre>
     * Hybrid search over the query and up to 3 alternative phrasings, all read from one
     * snapshot: per phrasing a full-text (BM25) and a vector arm fused by a weighted sum of their
     * per-query normalised (z-score) scores, then the phrasings by a weighted sum of their
     * min-max normalised scores (each alternative weighing half the query). At most 3 hits per page. The canonical JSON of the whole result
     * stays within max_output_bytes by dropping hits from the tail.
     * </pre>
     */
    public dev.quire.v1.SearchPagesResponse searchPages(dev.quire.v1.SearchPagesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSearchPagesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Reads a slice of a page in Unicode code points, optionally pinned to a revision
     * (PAGE_CHANGED when stale).
     * </pre>
     */
    public dev.quire.v1.ReadPageResponse readPage(dev.quire.v1.ReadPageRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getReadPageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists pages in path order under a prefix. Cursors are bound to the namespace revision.
     * </pre>
     */
    public dev.quire.v1.ListPagesResponse listPages(dev.quire.v1.ListPagesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListPagesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Literal substring search, line by line, bounded by limit, output budget and deadline.
     * </pre>
     */
    public dev.quire.v1.GrepPagesResponse grepPages(dev.quire.v1.GrepPagesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGrepPagesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs one bounded read-only command (ls, tree, find, cat, head, tail, wc, grep, rg) over the
     * namespace. Grammar errors come back as text in the result; service errors as typed errors.
     * </pre>
     */
    public dev.quire.v1.RunCommandResponse runCommand(dev.quire.v1.RunCommandRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRunCommandMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Tool definitions for agent runtimes: JSON Schema plus the MCP, OpenAI and Anthropic
     * shapes, with the caller's effective bounds, optionally bound to a namespace and an agent.
     * </pre>
     */
    public dev.quire.v1.DescribeToolsResponse describeTools(dev.quire.v1.DescribeToolsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDescribeToolsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The last stored SyncReport of a namespace.
     * </pre>
     */
    public dev.quire.v1.GetSyncReportResponse getSyncReport(dev.quire.v1.GetSyncReportRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetSyncReportMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Namespaces of the caller's organisation, by name.
     * </pre>
     */
    public dev.quire.v1.ListNamespacesResponse listNamespaces(dev.quire.v1.ListNamespacesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListNamespacesMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service PagesService.
   * <pre>
   * Published pages: documentation sites synchronised into namespaces of the caller's
   * organisation, then searched, read, listed, grepped and explored. Every call names a
   * namespace (1–128 characters of [A-Za-z0-9._-]).
   * </pre>
   */
  public static final class PagesServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<PagesServiceBlockingStub> {
    private PagesServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected PagesServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new PagesServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Hybrid search over the query and up to 3 alternative phrasings, all read from one
     * snapshot: per phrasing a full-text (BM25) and a vector arm fused by a weighted sum of their
     * per-query normalised (z-score) scores, then the phrasings by a weighted sum of their
     * min-max normalised scores (each alternative weighing half the query). At most 3 hits per page. The canonical JSON of the whole result
     * stays within max_output_bytes by dropping hits from the tail.
     * </pre>
     */
    public dev.quire.v1.SearchPagesResponse searchPages(dev.quire.v1.SearchPagesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSearchPagesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Reads a slice of a page in Unicode code points, optionally pinned to a revision
     * (PAGE_CHANGED when stale).
     * </pre>
     */
    public dev.quire.v1.ReadPageResponse readPage(dev.quire.v1.ReadPageRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReadPageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists pages in path order under a prefix. Cursors are bound to the namespace revision.
     * </pre>
     */
    public dev.quire.v1.ListPagesResponse listPages(dev.quire.v1.ListPagesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListPagesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Literal substring search, line by line, bounded by limit, output budget and deadline.
     * </pre>
     */
    public dev.quire.v1.GrepPagesResponse grepPages(dev.quire.v1.GrepPagesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGrepPagesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs one bounded read-only command (ls, tree, find, cat, head, tail, wc, grep, rg) over the
     * namespace. Grammar errors come back as text in the result; service errors as typed errors.
     * </pre>
     */
    public dev.quire.v1.RunCommandResponse runCommand(dev.quire.v1.RunCommandRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRunCommandMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Tool definitions for agent runtimes: JSON Schema plus the MCP, OpenAI and Anthropic
     * shapes, with the caller's effective bounds, optionally bound to a namespace and an agent.
     * </pre>
     */
    public dev.quire.v1.DescribeToolsResponse describeTools(dev.quire.v1.DescribeToolsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDescribeToolsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The last stored SyncReport of a namespace.
     * </pre>
     */
    public dev.quire.v1.GetSyncReportResponse getSyncReport(dev.quire.v1.GetSyncReportRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetSyncReportMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Namespaces of the caller's organisation, by name.
     * </pre>
     */
    public dev.quire.v1.ListNamespacesResponse listNamespaces(dev.quire.v1.ListNamespacesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListNamespacesMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service PagesService.
   * <pre>
   * Published pages: documentation sites synchronised into namespaces of the caller's
   * organisation, then searched, read, listed, grepped and explored. Every call names a
   * namespace (1–128 characters of [A-Za-z0-9._-]).
   * </pre>
   */
  public static final class PagesServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<PagesServiceFutureStub> {
    private PagesServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected PagesServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new PagesServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Hybrid search over the query and up to 3 alternative phrasings, all read from one
     * snapshot: per phrasing a full-text (BM25) and a vector arm fused by a weighted sum of their
     * per-query normalised (z-score) scores, then the phrasings by a weighted sum of their
     * min-max normalised scores (each alternative weighing half the query). At most 3 hits per page. The canonical JSON of the whole result
     * stays within max_output_bytes by dropping hits from the tail.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.SearchPagesResponse> searchPages(
        dev.quire.v1.SearchPagesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSearchPagesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Reads a slice of a page in Unicode code points, optionally pinned to a revision
     * (PAGE_CHANGED when stale).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.ReadPageResponse> readPage(
        dev.quire.v1.ReadPageRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReadPageMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists pages in path order under a prefix. Cursors are bound to the namespace revision.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.ListPagesResponse> listPages(
        dev.quire.v1.ListPagesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListPagesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Literal substring search, line by line, bounded by limit, output budget and deadline.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.GrepPagesResponse> grepPages(
        dev.quire.v1.GrepPagesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGrepPagesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Runs one bounded read-only command (ls, tree, find, cat, head, tail, wc, grep, rg) over the
     * namespace. Grammar errors come back as text in the result; service errors as typed errors.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.RunCommandResponse> runCommand(
        dev.quire.v1.RunCommandRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRunCommandMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Tool definitions for agent runtimes: JSON Schema plus the MCP, OpenAI and Anthropic
     * shapes, with the caller's effective bounds, optionally bound to a namespace and an agent.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.DescribeToolsResponse> describeTools(
        dev.quire.v1.DescribeToolsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDescribeToolsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The last stored SyncReport of a namespace.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.GetSyncReportResponse> getSyncReport(
        dev.quire.v1.GetSyncReportRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetSyncReportMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Namespaces of the caller's organisation, by name.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.ListNamespacesResponse> listNamespaces(
        dev.quire.v1.ListNamespacesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListNamespacesMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_SEARCH_PAGES = 0;
  private static final int METHODID_READ_PAGE = 1;
  private static final int METHODID_LIST_PAGES = 2;
  private static final int METHODID_GREP_PAGES = 3;
  private static final int METHODID_RUN_COMMAND = 4;
  private static final int METHODID_DESCRIBE_TOOLS = 5;
  private static final int METHODID_GET_SYNC_REPORT = 6;
  private static final int METHODID_LIST_NAMESPACES = 7;
  private static final int METHODID_SYNC_PAGES = 8;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final AsyncService serviceImpl;
    private final int methodId;

    MethodHandlers(AsyncService serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_SEARCH_PAGES:
          serviceImpl.searchPages((dev.quire.v1.SearchPagesRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.SearchPagesResponse>) responseObserver);
          break;
        case METHODID_READ_PAGE:
          serviceImpl.readPage((dev.quire.v1.ReadPageRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.ReadPageResponse>) responseObserver);
          break;
        case METHODID_LIST_PAGES:
          serviceImpl.listPages((dev.quire.v1.ListPagesRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.ListPagesResponse>) responseObserver);
          break;
        case METHODID_GREP_PAGES:
          serviceImpl.grepPages((dev.quire.v1.GrepPagesRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.GrepPagesResponse>) responseObserver);
          break;
        case METHODID_RUN_COMMAND:
          serviceImpl.runCommand((dev.quire.v1.RunCommandRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.RunCommandResponse>) responseObserver);
          break;
        case METHODID_DESCRIBE_TOOLS:
          serviceImpl.describeTools((dev.quire.v1.DescribeToolsRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.DescribeToolsResponse>) responseObserver);
          break;
        case METHODID_GET_SYNC_REPORT:
          serviceImpl.getSyncReport((dev.quire.v1.GetSyncReportRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.GetSyncReportResponse>) responseObserver);
          break;
        case METHODID_LIST_NAMESPACES:
          serviceImpl.listNamespaces((dev.quire.v1.ListNamespacesRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.ListNamespacesResponse>) responseObserver);
          break;
        default:
          throw new AssertionError();
      }
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public io.grpc.stub.StreamObserver<Req> invoke(
        io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_SYNC_PAGES:
          return (io.grpc.stub.StreamObserver<Req>) serviceImpl.syncPages(
              (io.grpc.stub.StreamObserver<dev.quire.v1.SyncPagesResponse>) responseObserver);
        default:
          throw new AssertionError();
      }
    }
  }

  public static final io.grpc.ServerServiceDefinition bindService(AsyncService service) {
    return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
        .addMethod(
          getSyncPagesMethod(),
          io.grpc.stub.ServerCalls.asyncBidiStreamingCall(
            new MethodHandlers<
              dev.quire.v1.SyncPagesRequest,
              dev.quire.v1.SyncPagesResponse>(
                service, METHODID_SYNC_PAGES)))
        .addMethod(
          getSearchPagesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.SearchPagesRequest,
              dev.quire.v1.SearchPagesResponse>(
                service, METHODID_SEARCH_PAGES)))
        .addMethod(
          getReadPageMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.ReadPageRequest,
              dev.quire.v1.ReadPageResponse>(
                service, METHODID_READ_PAGE)))
        .addMethod(
          getListPagesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.ListPagesRequest,
              dev.quire.v1.ListPagesResponse>(
                service, METHODID_LIST_PAGES)))
        .addMethod(
          getGrepPagesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.GrepPagesRequest,
              dev.quire.v1.GrepPagesResponse>(
                service, METHODID_GREP_PAGES)))
        .addMethod(
          getRunCommandMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.RunCommandRequest,
              dev.quire.v1.RunCommandResponse>(
                service, METHODID_RUN_COMMAND)))
        .addMethod(
          getDescribeToolsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.DescribeToolsRequest,
              dev.quire.v1.DescribeToolsResponse>(
                service, METHODID_DESCRIBE_TOOLS)))
        .addMethod(
          getGetSyncReportMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.GetSyncReportRequest,
              dev.quire.v1.GetSyncReportResponse>(
                service, METHODID_GET_SYNC_REPORT)))
        .addMethod(
          getListNamespacesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.ListNamespacesRequest,
              dev.quire.v1.ListNamespacesResponse>(
                service, METHODID_LIST_NAMESPACES)))
        .build();
  }

  private static abstract class PagesServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    PagesServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.quire.v1.PagesServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("PagesService");
    }
  }

  private static final class PagesServiceFileDescriptorSupplier
      extends PagesServiceBaseDescriptorSupplier {
    PagesServiceFileDescriptorSupplier() {}
  }

  private static final class PagesServiceMethodDescriptorSupplier
      extends PagesServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    PagesServiceMethodDescriptorSupplier(java.lang.String methodName) {
      this.methodName = methodName;
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.MethodDescriptor getMethodDescriptor() {
      return getServiceDescriptor().findMethodByName(methodName);
    }
  }

  private static volatile io.grpc.ServiceDescriptor serviceDescriptor;

  public static io.grpc.ServiceDescriptor getServiceDescriptor() {
    io.grpc.ServiceDescriptor result = serviceDescriptor;
    if (result == null) {
      synchronized (PagesServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new PagesServiceFileDescriptorSupplier())
              .addMethod(getSyncPagesMethod())
              .addMethod(getSearchPagesMethod())
              .addMethod(getReadPageMethod())
              .addMethod(getListPagesMethod())
              .addMethod(getGrepPagesMethod())
              .addMethod(getRunCommandMethod())
              .addMethod(getDescribeToolsMethod())
              .addMethod(getGetSyncReportMethod())
              .addMethod(getListNamespacesMethod())
              .build();
        }
      }
    }
    return result;
  }
}
