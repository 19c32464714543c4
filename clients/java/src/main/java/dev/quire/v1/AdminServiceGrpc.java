package dev.quire.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Administration; every call but WhoAmI needs a key with scope `admin`, and every change is
 * audited.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class AdminServiceGrpc {

  private AdminServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "quire.v1.AdminService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.SetRetrievalPolicyRequest,
      dev.quire.v1.SetRetrievalPolicyResponse> getSetRetrievalPolicyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetRetrievalPolicy",
      requestType = dev.quire.v1.SetRetrievalPolicyRequest.class,
      responseType = dev.quire.v1.SetRetrievalPolicyResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.SetRetrievalPolicyRequest,
      dev.quire.v1.SetRetrievalPolicyResponse> getSetRetrievalPolicyMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.SetRetrievalPolicyRequest, dev.quire.v1.SetRetrievalPolicyResponse> getSetRetrievalPolicyMethod;
    if ((getSetRetrievalPolicyMethod = AdminServiceGrpc.getSetRetrievalPolicyMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getSetRetrievalPolicyMethod = AdminServiceGrpc.getSetRetrievalPolicyMethod) == null) {
          AdminServiceGrpc.getSetRetrievalPolicyMethod = getSetRetrievalPolicyMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.SetRetrievalPolicyRequest, dev.quire.v1.SetRetrievalPolicyResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetRetrievalPolicy"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.SetRetrievalPolicyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.SetRetrievalPolicyResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("SetRetrievalPolicy"))
              .build();
        }
      }
    }
    return getSetRetrievalPolicyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.GetRetrievalPolicyRequest,
      dev.quire.v1.GetRetrievalPolicyResponse> getGetRetrievalPolicyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetRetrievalPolicy",
      requestType = dev.quire.v1.GetRetrievalPolicyRequest.class,
      responseType = dev.quire.v1.GetRetrievalPolicyResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.GetRetrievalPolicyRequest,
      dev.quire.v1.GetRetrievalPolicyResponse> getGetRetrievalPolicyMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.GetRetrievalPolicyRequest, dev.quire.v1.GetRetrievalPolicyResponse> getGetRetrievalPolicyMethod;
    if ((getGetRetrievalPolicyMethod = AdminServiceGrpc.getGetRetrievalPolicyMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getGetRetrievalPolicyMethod = AdminServiceGrpc.getGetRetrievalPolicyMethod) == null) {
          AdminServiceGrpc.getGetRetrievalPolicyMethod = getGetRetrievalPolicyMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.GetRetrievalPolicyRequest, dev.quire.v1.GetRetrievalPolicyResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetRetrievalPolicy"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GetRetrievalPolicyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GetRetrievalPolicyResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("GetRetrievalPolicy"))
              .build();
        }
      }
    }
    return getGetRetrievalPolicyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.SetKillSwitchRequest,
      dev.quire.v1.SetKillSwitchResponse> getSetKillSwitchMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetKillSwitch",
      requestType = dev.quire.v1.SetKillSwitchRequest.class,
      responseType = dev.quire.v1.SetKillSwitchResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.SetKillSwitchRequest,
      dev.quire.v1.SetKillSwitchResponse> getSetKillSwitchMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.SetKillSwitchRequest, dev.quire.v1.SetKillSwitchResponse> getSetKillSwitchMethod;
    if ((getSetKillSwitchMethod = AdminServiceGrpc.getSetKillSwitchMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getSetKillSwitchMethod = AdminServiceGrpc.getSetKillSwitchMethod) == null) {
          AdminServiceGrpc.getSetKillSwitchMethod = getSetKillSwitchMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.SetKillSwitchRequest, dev.quire.v1.SetKillSwitchResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetKillSwitch"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.SetKillSwitchRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.SetKillSwitchResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("SetKillSwitch"))
              .build();
        }
      }
    }
    return getSetKillSwitchMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.SetNamespaceSearchConfigRequest,
      dev.quire.v1.SetNamespaceSearchConfigResponse> getSetNamespaceSearchConfigMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetNamespaceSearchConfig",
      requestType = dev.quire.v1.SetNamespaceSearchConfigRequest.class,
      responseType = dev.quire.v1.SetNamespaceSearchConfigResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.SetNamespaceSearchConfigRequest,
      dev.quire.v1.SetNamespaceSearchConfigResponse> getSetNamespaceSearchConfigMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.SetNamespaceSearchConfigRequest, dev.quire.v1.SetNamespaceSearchConfigResponse> getSetNamespaceSearchConfigMethod;
    if ((getSetNamespaceSearchConfigMethod = AdminServiceGrpc.getSetNamespaceSearchConfigMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getSetNamespaceSearchConfigMethod = AdminServiceGrpc.getSetNamespaceSearchConfigMethod) == null) {
          AdminServiceGrpc.getSetNamespaceSearchConfigMethod = getSetNamespaceSearchConfigMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.SetNamespaceSearchConfigRequest, dev.quire.v1.SetNamespaceSearchConfigResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetNamespaceSearchConfig"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.SetNamespaceSearchConfigRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.SetNamespaceSearchConfigResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("SetNamespaceSearchConfig"))
              .build();
        }
      }
    }
    return getSetNamespaceSearchConfigMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.RebuildIndexRequest,
      dev.quire.v1.RebuildIndexResponse> getRebuildIndexMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RebuildIndex",
      requestType = dev.quire.v1.RebuildIndexRequest.class,
      responseType = dev.quire.v1.RebuildIndexResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.RebuildIndexRequest,
      dev.quire.v1.RebuildIndexResponse> getRebuildIndexMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.RebuildIndexRequest, dev.quire.v1.RebuildIndexResponse> getRebuildIndexMethod;
    if ((getRebuildIndexMethod = AdminServiceGrpc.getRebuildIndexMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getRebuildIndexMethod = AdminServiceGrpc.getRebuildIndexMethod) == null) {
          AdminServiceGrpc.getRebuildIndexMethod = getRebuildIndexMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.RebuildIndexRequest, dev.quire.v1.RebuildIndexResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RebuildIndex"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.RebuildIndexRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.RebuildIndexResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("RebuildIndex"))
              .build();
        }
      }
    }
    return getRebuildIndexMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.RollbackIndexRequest,
      dev.quire.v1.RollbackIndexResponse> getRollbackIndexMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RollbackIndex",
      requestType = dev.quire.v1.RollbackIndexRequest.class,
      responseType = dev.quire.v1.RollbackIndexResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.RollbackIndexRequest,
      dev.quire.v1.RollbackIndexResponse> getRollbackIndexMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.RollbackIndexRequest, dev.quire.v1.RollbackIndexResponse> getRollbackIndexMethod;
    if ((getRollbackIndexMethod = AdminServiceGrpc.getRollbackIndexMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getRollbackIndexMethod = AdminServiceGrpc.getRollbackIndexMethod) == null) {
          AdminServiceGrpc.getRollbackIndexMethod = getRollbackIndexMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.RollbackIndexRequest, dev.quire.v1.RollbackIndexResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RollbackIndex"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.RollbackIndexRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.RollbackIndexResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("RollbackIndex"))
              .build();
        }
      }
    }
    return getRollbackIndexMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.RunGateRequest,
      dev.quire.v1.RunGateResponse> getRunGateMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RunGate",
      requestType = dev.quire.v1.RunGateRequest.class,
      responseType = dev.quire.v1.RunGateResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.quire.v1.RunGateRequest,
      dev.quire.v1.RunGateResponse> getRunGateMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.RunGateRequest, dev.quire.v1.RunGateResponse> getRunGateMethod;
    if ((getRunGateMethod = AdminServiceGrpc.getRunGateMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getRunGateMethod = AdminServiceGrpc.getRunGateMethod) == null) {
          AdminServiceGrpc.getRunGateMethod = getRunGateMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.RunGateRequest, dev.quire.v1.RunGateResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RunGate"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.RunGateRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.RunGateResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("RunGate"))
              .build();
        }
      }
    }
    return getRunGateMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.GetGateStatusRequest,
      dev.quire.v1.GetGateStatusResponse> getGetGateStatusMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetGateStatus",
      requestType = dev.quire.v1.GetGateStatusRequest.class,
      responseType = dev.quire.v1.GetGateStatusResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.GetGateStatusRequest,
      dev.quire.v1.GetGateStatusResponse> getGetGateStatusMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.GetGateStatusRequest, dev.quire.v1.GetGateStatusResponse> getGetGateStatusMethod;
    if ((getGetGateStatusMethod = AdminServiceGrpc.getGetGateStatusMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getGetGateStatusMethod = AdminServiceGrpc.getGetGateStatusMethod) == null) {
          AdminServiceGrpc.getGetGateStatusMethod = getGetGateStatusMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.GetGateStatusRequest, dev.quire.v1.GetGateStatusResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetGateStatus"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GetGateStatusRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GetGateStatusResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("GetGateStatus"))
              .build();
        }
      }
    }
    return getGetGateStatusMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.GetShadowReportRequest,
      dev.quire.v1.GetShadowReportResponse> getGetShadowReportMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetShadowReport",
      requestType = dev.quire.v1.GetShadowReportRequest.class,
      responseType = dev.quire.v1.GetShadowReportResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.GetShadowReportRequest,
      dev.quire.v1.GetShadowReportResponse> getGetShadowReportMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.GetShadowReportRequest, dev.quire.v1.GetShadowReportResponse> getGetShadowReportMethod;
    if ((getGetShadowReportMethod = AdminServiceGrpc.getGetShadowReportMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getGetShadowReportMethod = AdminServiceGrpc.getGetShadowReportMethod) == null) {
          AdminServiceGrpc.getGetShadowReportMethod = getGetShadowReportMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.GetShadowReportRequest, dev.quire.v1.GetShadowReportResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetShadowReport"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GetShadowReportRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GetShadowReportResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("GetShadowReport"))
              .build();
        }
      }
    }
    return getGetShadowReportMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.CreateApiKeyRequest,
      dev.quire.v1.CreateApiKeyResponse> getCreateApiKeyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateApiKey",
      requestType = dev.quire.v1.CreateApiKeyRequest.class,
      responseType = dev.quire.v1.CreateApiKeyResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.CreateApiKeyRequest,
      dev.quire.v1.CreateApiKeyResponse> getCreateApiKeyMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.CreateApiKeyRequest, dev.quire.v1.CreateApiKeyResponse> getCreateApiKeyMethod;
    if ((getCreateApiKeyMethod = AdminServiceGrpc.getCreateApiKeyMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getCreateApiKeyMethod = AdminServiceGrpc.getCreateApiKeyMethod) == null) {
          AdminServiceGrpc.getCreateApiKeyMethod = getCreateApiKeyMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.CreateApiKeyRequest, dev.quire.v1.CreateApiKeyResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateApiKey"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.CreateApiKeyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.CreateApiKeyResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("CreateApiKey"))
              .build();
        }
      }
    }
    return getCreateApiKeyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.RevokeApiKeyRequest,
      dev.quire.v1.RevokeApiKeyResponse> getRevokeApiKeyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RevokeApiKey",
      requestType = dev.quire.v1.RevokeApiKeyRequest.class,
      responseType = dev.quire.v1.RevokeApiKeyResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.RevokeApiKeyRequest,
      dev.quire.v1.RevokeApiKeyResponse> getRevokeApiKeyMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.RevokeApiKeyRequest, dev.quire.v1.RevokeApiKeyResponse> getRevokeApiKeyMethod;
    if ((getRevokeApiKeyMethod = AdminServiceGrpc.getRevokeApiKeyMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getRevokeApiKeyMethod = AdminServiceGrpc.getRevokeApiKeyMethod) == null) {
          AdminServiceGrpc.getRevokeApiKeyMethod = getRevokeApiKeyMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.RevokeApiKeyRequest, dev.quire.v1.RevokeApiKeyResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RevokeApiKey"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.RevokeApiKeyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.RevokeApiKeyResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("RevokeApiKey"))
              .build();
        }
      }
    }
    return getRevokeApiKeyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.ListApiKeysRequest,
      dev.quire.v1.ListApiKeysResponse> getListApiKeysMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListApiKeys",
      requestType = dev.quire.v1.ListApiKeysRequest.class,
      responseType = dev.quire.v1.ListApiKeysResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.ListApiKeysRequest,
      dev.quire.v1.ListApiKeysResponse> getListApiKeysMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.ListApiKeysRequest, dev.quire.v1.ListApiKeysResponse> getListApiKeysMethod;
    if ((getListApiKeysMethod = AdminServiceGrpc.getListApiKeysMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListApiKeysMethod = AdminServiceGrpc.getListApiKeysMethod) == null) {
          AdminServiceGrpc.getListApiKeysMethod = getListApiKeysMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.ListApiKeysRequest, dev.quire.v1.ListApiKeysResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListApiKeys"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ListApiKeysRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ListApiKeysResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("ListApiKeys"))
              .build();
        }
      }
    }
    return getListApiKeysMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.WhoAmIRequest,
      dev.quire.v1.WhoAmIResponse> getWhoAmIMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "WhoAmI",
      requestType = dev.quire.v1.WhoAmIRequest.class,
      responseType = dev.quire.v1.WhoAmIResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.WhoAmIRequest,
      dev.quire.v1.WhoAmIResponse> getWhoAmIMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.WhoAmIRequest, dev.quire.v1.WhoAmIResponse> getWhoAmIMethod;
    if ((getWhoAmIMethod = AdminServiceGrpc.getWhoAmIMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getWhoAmIMethod = AdminServiceGrpc.getWhoAmIMethod) == null) {
          AdminServiceGrpc.getWhoAmIMethod = getWhoAmIMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.WhoAmIRequest, dev.quire.v1.WhoAmIResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "WhoAmI"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.WhoAmIRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.WhoAmIResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("WhoAmI"))
              .build();
        }
      }
    }
    return getWhoAmIMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static AdminServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceStub>() {
        @java.lang.Override
        public AdminServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceStub(channel, callOptions);
        }
      };
    return AdminServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static AdminServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceBlockingV2Stub>() {
        @java.lang.Override
        public AdminServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return AdminServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static AdminServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceBlockingStub>() {
        @java.lang.Override
        public AdminServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceBlockingStub(channel, callOptions);
        }
      };
    return AdminServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static AdminServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceFutureStub>() {
        @java.lang.Override
        public AdminServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceFutureStub(channel, callOptions);
        }
      };
    return AdminServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Administration; every call but WhoAmI needs a key with scope `admin`, and every change is
   * audited.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Sets the caller organisation's retrieval mode and/or search limit bound.
     * </pre>
     */
    default void setRetrievalPolicy(dev.quire.v1.SetRetrievalPolicyRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.SetRetrievalPolicyResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetRetrievalPolicyMethod(), responseObserver);
    }

    /**
     * <pre>
     * The caller organisation's retrieval mode and search limit bound.
     * </pre>
     */
    default void getRetrievalPolicy(dev.quire.v1.GetRetrievalPolicyRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GetRetrievalPolicyResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetRetrievalPolicyMethod(), responseObserver);
    }

    /**
     * <pre>
     * Engages (or releases) the kill switch: every organisation is served LEGACY_FTS at once.
     * </pre>
     */
    default void setKillSwitch(dev.quire.v1.SetKillSwitchRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.SetKillSwitchResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetKillSwitchMethod(), responseObserver);
    }

    /**
     * <pre>
     * Per-namespace planner settings for SearchPages (an unset field inherits).
     * </pre>
     */
    default void setNamespaceSearchConfig(dev.quire.v1.SetNamespaceSearchConfigRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.SetNamespaceSearchConfigResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetNamespaceSearchConfigMethod(), responseObserver);
    }

    /**
     * <pre>
     * Builds generation g+1 of a collection's index beside g, then flips atomically; with
     * `embedding_model`, g+1 is embedded with that model (the only way to change a collection's
     * model: its vectors never mix models).
     * </pre>
     */
    default void rebuildIndex(dev.quire.v1.RebuildIndexRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.RebuildIndexResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRebuildIndexMethod(), responseObserver);
    }

    /**
     * <pre>
     * Serves the newest retired generation again (the current one is retired in its place),
     * with the embedding model it was built with; SEARCH_UNAVAILABLE, nothing changed, when
     * that model is not the default and the server has not loaded it.
     * </pre>
     */
    default void rollbackIndex(dev.quire.v1.RollbackIndexRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.RollbackIndexResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRollbackIndexMethod(), responseObserver);
    }

    /**
     * <pre>
     * Runs the FTS baseline gate on a judged data set the operator provided on the server, by
     * name; streams progress, then the result.
     * </pre>
     */
    default void runGate(dev.quire.v1.RunGateRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.RunGateResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRunGateMethod(), responseObserver);
    }

    /**
     * <pre>
     * The latest gate result for the current index fingerprint, if any.
     * </pre>
     */
    default void getGateStatus(dev.quire.v1.GetGateStatusRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GetGateStatusResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetGateStatusMethod(), responseObserver);
    }

    /**
     * <pre>
     * Summary of HYBRID_SHADOW comparisons of the caller's organisation.
     * </pre>
     */
    default void getShadowReport(dev.quire.v1.GetShadowReportRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GetShadowReportResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetShadowReportMethod(), responseObserver);
    }

    /**
     * <pre>
     * Creates an API key of the caller's organisation; the secret is returned once.
     * </pre>
     */
    default void createApiKey(dev.quire.v1.CreateApiKeyRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.CreateApiKeyResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateApiKeyMethod(), responseObserver);
    }

    /**
     * <pre>
     * Revokes a key of the caller's organisation.
     * </pre>
     */
    default void revokeApiKey(dev.quire.v1.RevokeApiKeyRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.RevokeApiKeyResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRevokeApiKeyMethod(), responseObserver);
    }

    /**
     * <pre>
     * The caller organisation's live (unrevoked) keys, newest first: ids, names, scopes, when
     * created and last used. Never a secret.
     * </pre>
     */
    default void listApiKeys(dev.quire.v1.ListApiKeysRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ListApiKeysResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListApiKeysMethod(), responseObserver);
    }

    /**
     * <pre>
     * Who the caller is: the organisation, the key (never its secret) and the limits its calls
     * are held to. Needs scope `read` only, so any ordinary key can ask.
     * </pre>
     */
    default void whoAmI(dev.quire.v1.WhoAmIRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.WhoAmIResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getWhoAmIMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service AdminService.
   * <pre>
   * Administration; every call but WhoAmI needs a key with scope `admin`, and every change is
   * audited.
   * </pre>
   */
  public static abstract class AdminServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return AdminServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service AdminService.
   * <pre>
   * Administration; every call but WhoAmI needs a key with scope `admin`, and every change is
   * audited.
   * </pre>
   */
  public static final class AdminServiceStub
      extends io.grpc.stub.AbstractAsyncStub<AdminServiceStub> {
    private AdminServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Sets the caller organisation's retrieval mode and/or search limit bound.
     * </pre>
     */
    public void setRetrievalPolicy(dev.quire.v1.SetRetrievalPolicyRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.SetRetrievalPolicyResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetRetrievalPolicyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The caller organisation's retrieval mode and search limit bound.
     * </pre>
     */
    public void getRetrievalPolicy(dev.quire.v1.GetRetrievalPolicyRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GetRetrievalPolicyResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetRetrievalPolicyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Engages (or releases) the kill switch: every organisation is served LEGACY_FTS at once.
     * </pre>
     */
    public void setKillSwitch(dev.quire.v1.SetKillSwitchRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.SetKillSwitchResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetKillSwitchMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Per-namespace planner settings for SearchPages (an unset field inherits).
     * </pre>
     */
    public void setNamespaceSearchConfig(dev.quire.v1.SetNamespaceSearchConfigRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.SetNamespaceSearchConfigResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetNamespaceSearchConfigMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Builds generation g+1 of a collection's index beside g, then flips atomically; with
     * `embedding_model`, g+1 is embedded with that model (the only way to change a collection's
     * model: its vectors never mix models).
     * </pre>
     */
    public void rebuildIndex(dev.quire.v1.RebuildIndexRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.RebuildIndexResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRebuildIndexMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Serves the newest retired generation again (the current one is retired in its place),
     * with the embedding model it was built with; SEARCH_UNAVAILABLE, nothing changed, when
     * that model is not the default and the server has not loaded it.
     * </pre>
     */
    public void rollbackIndex(dev.quire.v1.RollbackIndexRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.RollbackIndexResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRollbackIndexMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Runs the FTS baseline gate on a judged data set the operator provided on the server, by
     * name; streams progress, then the result.
     * </pre>
     */
    public void runGate(dev.quire.v1.RunGateRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.RunGateResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getRunGateMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The latest gate result for the current index fingerprint, if any.
     * </pre>
     */
    public void getGateStatus(dev.quire.v1.GetGateStatusRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GetGateStatusResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetGateStatusMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Summary of HYBRID_SHADOW comparisons of the caller's organisation.
     * </pre>
     */
    public void getShadowReport(dev.quire.v1.GetShadowReportRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GetShadowReportResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetShadowReportMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Creates an API key of the caller's organisation; the secret is returned once.
     * </pre>
     */
    public void createApiKey(dev.quire.v1.CreateApiKeyRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.CreateApiKeyResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateApiKeyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Revokes a key of the caller's organisation.
     * </pre>
     */
    public void revokeApiKey(dev.quire.v1.RevokeApiKeyRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.RevokeApiKeyResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRevokeApiKeyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The caller organisation's live (unrevoked) keys, newest first: ids, names, scopes, when
     * created and last used. Never a secret.
     * </pre>
     */
    public void listApiKeys(dev.quire.v1.ListApiKeysRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ListApiKeysResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListApiKeysMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Who the caller is: the organisation, the key (never its secret) and the limits its calls
     * are held to. Needs scope `read` only, so any ordinary key can ask.
     * </pre>
     */
    public void whoAmI(dev.quire.v1.WhoAmIRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.WhoAmIResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getWhoAmIMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service AdminService.
   * <pre>
   * Administration; every call but WhoAmI needs a key with scope `admin`, and every change is
   * audited.
   * </pre>
   */
  public static final class AdminServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<AdminServiceBlockingV2Stub> {
    private AdminServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Sets the caller organisation's retrieval mode and/or search limit bound.
     * </pre>
     */
    public dev.quire.v1.SetRetrievalPolicyResponse setRetrievalPolicy(dev.quire.v1.SetRetrievalPolicyRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSetRetrievalPolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The caller organisation's retrieval mode and search limit bound.
     * </pre>
     */
    public dev.quire.v1.GetRetrievalPolicyResponse getRetrievalPolicy(dev.quire.v1.GetRetrievalPolicyRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetRetrievalPolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Engages (or releases) the kill switch: every organisation is served LEGACY_FTS at once.
     * </pre>
     */
    public dev.quire.v1.SetKillSwitchResponse setKillSwitch(dev.quire.v1.SetKillSwitchRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSetKillSwitchMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Per-namespace planner settings for SearchPages (an unset field inherits).
     * </pre>
     */
    public dev.quire.v1.SetNamespaceSearchConfigResponse setNamespaceSearchConfig(dev.quire.v1.SetNamespaceSearchConfigRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSetNamespaceSearchConfigMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Builds generation g+1 of a collection's index beside g, then flips atomically; with
     * `embedding_model`, g+1 is embedded with that model (the only way to change a collection's
     * model: its vectors never mix models).
     * </pre>
     */
    public dev.quire.v1.RebuildIndexResponse rebuildIndex(dev.quire.v1.RebuildIndexRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRebuildIndexMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Serves the newest retired generation again (the current one is retired in its place),
     * with the embedding model it was built with; SEARCH_UNAVAILABLE, nothing changed, when
     * that model is not the default and the server has not loaded it.
     * </pre>
     */
    public dev.quire.v1.RollbackIndexResponse rollbackIndex(dev.quire.v1.RollbackIndexRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRollbackIndexMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs the FTS baseline gate on a judged data set the operator provided on the server, by
     * name; streams progress, then the result.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<?, dev.quire.v1.RunGateResponse>
        runGate(dev.quire.v1.RunGateRequest request) {
      return io.grpc.stub.ClientCalls.blockingV2ServerStreamingCall(
          getChannel(), getRunGateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The latest gate result for the current index fingerprint, if any.
     * </pre>
     */
    public dev.quire.v1.GetGateStatusResponse getGateStatus(dev.quire.v1.GetGateStatusRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetGateStatusMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Summary of HYBRID_SHADOW comparisons of the caller's organisation.
     * </pre>
     */
    public dev.quire.v1.GetShadowReportResponse getShadowReport(dev.quire.v1.GetShadowReportRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetShadowReportMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Creates an API key of the caller's organisation; the secret is returned once.
     * </pre>
     */
    public dev.quire.v1.CreateApiKeyResponse createApiKey(dev.quire.v1.CreateApiKeyRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCreateApiKeyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Revokes a key of the caller's organisation.
     * </pre>
     */
    public dev.quire.v1.RevokeApiKeyResponse revokeApiKey(dev.quire.v1.RevokeApiKeyRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRevokeApiKeyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The caller organisation's live (unrevoked) keys, newest first: ids, names, scopes, when
     * created and last used. Never a secret.
     * </pre>
     */
    public dev.quire.v1.ListApiKeysResponse listApiKeys(dev.quire.v1.ListApiKeysRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListApiKeysMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Who the caller is: the organisation, the key (never its secret) and the limits its calls
     * are held to. Needs scope `read` only, so any ordinary key can ask.
     * </pre>
     */
    public dev.quire.v1.WhoAmIResponse whoAmI(dev.quire.v1.WhoAmIRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getWhoAmIMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service AdminService.
   * <pre>
   * Administration; every call but WhoAmI needs a key with scope `admin`, and every change is
   * audited.
   * </pre>
   */
  public static final class AdminServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<AdminServiceBlockingStub> {
    private AdminServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Sets the caller organisation's retrieval mode and/or search limit bound.
     * </pre>
     */
    public dev.quire.v1.SetRetrievalPolicyResponse setRetrievalPolicy(dev.quire.v1.SetRetrievalPolicyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetRetrievalPolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The caller organisation's retrieval mode and search limit bound.
     * </pre>
     */
    public dev.quire.v1.GetRetrievalPolicyResponse getRetrievalPolicy(dev.quire.v1.GetRetrievalPolicyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetRetrievalPolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Engages (or releases) the kill switch: every organisation is served LEGACY_FTS at once.
     * </pre>
     */
    public dev.quire.v1.SetKillSwitchResponse setKillSwitch(dev.quire.v1.SetKillSwitchRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetKillSwitchMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Per-namespace planner settings for SearchPages (an unset field inherits).
     * </pre>
     */
    public dev.quire.v1.SetNamespaceSearchConfigResponse setNamespaceSearchConfig(dev.quire.v1.SetNamespaceSearchConfigRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetNamespaceSearchConfigMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Builds generation g+1 of a collection's index beside g, then flips atomically; with
     * `embedding_model`, g+1 is embedded with that model (the only way to change a collection's
     * model: its vectors never mix models).
     * </pre>
     */
    public dev.quire.v1.RebuildIndexResponse rebuildIndex(dev.quire.v1.RebuildIndexRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRebuildIndexMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Serves the newest retired generation again (the current one is retired in its place),
     * with the embedding model it was built with; SEARCH_UNAVAILABLE, nothing changed, when
     * that model is not the default and the server has not loaded it.
     * </pre>
     */
    public dev.quire.v1.RollbackIndexResponse rollbackIndex(dev.quire.v1.RollbackIndexRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRollbackIndexMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs the FTS baseline gate on a judged data set the operator provided on the server, by
     * name; streams progress, then the result.
     * </pre>
     */
    public java.util.Iterator<dev.quire.v1.RunGateResponse> runGate(
        dev.quire.v1.RunGateRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getRunGateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The latest gate result for the current index fingerprint, if any.
     * </pre>
     */
    public dev.quire.v1.GetGateStatusResponse getGateStatus(dev.quire.v1.GetGateStatusRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetGateStatusMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Summary of HYBRID_SHADOW comparisons of the caller's organisation.
     * </pre>
     */
    public dev.quire.v1.GetShadowReportResponse getShadowReport(dev.quire.v1.GetShadowReportRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetShadowReportMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Creates an API key of the caller's organisation; the secret is returned once.
     * </pre>
     */
    public dev.quire.v1.CreateApiKeyResponse createApiKey(dev.quire.v1.CreateApiKeyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateApiKeyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Revokes a key of the caller's organisation.
     * </pre>
     */
    public dev.quire.v1.RevokeApiKeyResponse revokeApiKey(dev.quire.v1.RevokeApiKeyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRevokeApiKeyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The caller organisation's live (unrevoked) keys, newest first: ids, names, scopes, when
     * created and last used. Never a secret.
     * </pre>
     */
    public dev.quire.v1.ListApiKeysResponse listApiKeys(dev.quire.v1.ListApiKeysRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListApiKeysMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Who the caller is: the organisation, the key (never its secret) and the limits its calls
     * are held to. Needs scope `read` only, so any ordinary key can ask.
     * </pre>
     */
    public dev.quire.v1.WhoAmIResponse whoAmI(dev.quire.v1.WhoAmIRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getWhoAmIMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service AdminService.
   * <pre>
   * Administration; every call but WhoAmI needs a key with scope `admin`, and every change is
   * audited.
   * </pre>
   */
  public static final class AdminServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<AdminServiceFutureStub> {
    private AdminServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Sets the caller organisation's retrieval mode and/or search limit bound.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.SetRetrievalPolicyResponse> setRetrievalPolicy(
        dev.quire.v1.SetRetrievalPolicyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetRetrievalPolicyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The caller organisation's retrieval mode and search limit bound.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.GetRetrievalPolicyResponse> getRetrievalPolicy(
        dev.quire.v1.GetRetrievalPolicyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetRetrievalPolicyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Engages (or releases) the kill switch: every organisation is served LEGACY_FTS at once.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.SetKillSwitchResponse> setKillSwitch(
        dev.quire.v1.SetKillSwitchRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetKillSwitchMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Per-namespace planner settings for SearchPages (an unset field inherits).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.SetNamespaceSearchConfigResponse> setNamespaceSearchConfig(
        dev.quire.v1.SetNamespaceSearchConfigRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetNamespaceSearchConfigMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Builds generation g+1 of a collection's index beside g, then flips atomically; with
     * `embedding_model`, g+1 is embedded with that model (the only way to change a collection's
     * model: its vectors never mix models).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.RebuildIndexResponse> rebuildIndex(
        dev.quire.v1.RebuildIndexRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRebuildIndexMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Serves the newest retired generation again (the current one is retired in its place),
     * with the embedding model it was built with; SEARCH_UNAVAILABLE, nothing changed, when
     * that model is not the default and the server has not loaded it.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.RollbackIndexResponse> rollbackIndex(
        dev.quire.v1.RollbackIndexRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRollbackIndexMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The latest gate result for the current index fingerprint, if any.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.GetGateStatusResponse> getGateStatus(
        dev.quire.v1.GetGateStatusRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetGateStatusMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Summary of HYBRID_SHADOW comparisons of the caller's organisation.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.GetShadowReportResponse> getShadowReport(
        dev.quire.v1.GetShadowReportRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetShadowReportMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Creates an API key of the caller's organisation; the secret is returned once.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.CreateApiKeyResponse> createApiKey(
        dev.quire.v1.CreateApiKeyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateApiKeyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Revokes a key of the caller's organisation.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.RevokeApiKeyResponse> revokeApiKey(
        dev.quire.v1.RevokeApiKeyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRevokeApiKeyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The caller organisation's live (unrevoked) keys, newest first: ids, names, scopes, when
     * created and last used. Never a secret.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.ListApiKeysResponse> listApiKeys(
        dev.quire.v1.ListApiKeysRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListApiKeysMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Who the caller is: the organisation, the key (never its secret) and the limits its calls
     * are held to. Needs scope `read` only, so any ordinary key can ask.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.WhoAmIResponse> whoAmI(
        dev.quire.v1.WhoAmIRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getWhoAmIMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_SET_RETRIEVAL_POLICY = 0;
  private static final int METHODID_GET_RETRIEVAL_POLICY = 1;
  private static final int METHODID_SET_KILL_SWITCH = 2;
  private static final int METHODID_SET_NAMESPACE_SEARCH_CONFIG = 3;
  private static final int METHODID_REBUILD_INDEX = 4;
  private static final int METHODID_ROLLBACK_INDEX = 5;
  private static final int METHODID_RUN_GATE = 6;
  private static final int METHODID_GET_GATE_STATUS = 7;
  private static final int METHODID_GET_SHADOW_REPORT = 8;
  private static final int METHODID_CREATE_API_KEY = 9;
  private static final int METHODID_REVOKE_API_KEY = 10;
  private static final int METHODID_LIST_API_KEYS = 11;
  private static final int METHODID_WHO_AM_I = 12;

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
        case METHODID_SET_RETRIEVAL_POLICY:
          serviceImpl.setRetrievalPolicy((dev.quire.v1.SetRetrievalPolicyRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.SetRetrievalPolicyResponse>) responseObserver);
          break;
        case METHODID_GET_RETRIEVAL_POLICY:
          serviceImpl.getRetrievalPolicy((dev.quire.v1.GetRetrievalPolicyRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.GetRetrievalPolicyResponse>) responseObserver);
          break;
        case METHODID_SET_KILL_SWITCH:
          serviceImpl.setKillSwitch((dev.quire.v1.SetKillSwitchRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.SetKillSwitchResponse>) responseObserver);
          break;
        case METHODID_SET_NAMESPACE_SEARCH_CONFIG:
          serviceImpl.setNamespaceSearchConfig((dev.quire.v1.SetNamespaceSearchConfigRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.SetNamespaceSearchConfigResponse>) responseObserver);
          break;
        case METHODID_REBUILD_INDEX:
          serviceImpl.rebuildIndex((dev.quire.v1.RebuildIndexRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.RebuildIndexResponse>) responseObserver);
          break;
        case METHODID_ROLLBACK_INDEX:
          serviceImpl.rollbackIndex((dev.quire.v1.RollbackIndexRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.RollbackIndexResponse>) responseObserver);
          break;
        case METHODID_RUN_GATE:
          serviceImpl.runGate((dev.quire.v1.RunGateRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.RunGateResponse>) responseObserver);
          break;
        case METHODID_GET_GATE_STATUS:
          serviceImpl.getGateStatus((dev.quire.v1.GetGateStatusRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.GetGateStatusResponse>) responseObserver);
          break;
        case METHODID_GET_SHADOW_REPORT:
          serviceImpl.getShadowReport((dev.quire.v1.GetShadowReportRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.GetShadowReportResponse>) responseObserver);
          break;
        case METHODID_CREATE_API_KEY:
          serviceImpl.createApiKey((dev.quire.v1.CreateApiKeyRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.CreateApiKeyResponse>) responseObserver);
          break;
        case METHODID_REVOKE_API_KEY:
          serviceImpl.revokeApiKey((dev.quire.v1.RevokeApiKeyRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.RevokeApiKeyResponse>) responseObserver);
          break;
        case METHODID_LIST_API_KEYS:
          serviceImpl.listApiKeys((dev.quire.v1.ListApiKeysRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.ListApiKeysResponse>) responseObserver);
          break;
        case METHODID_WHO_AM_I:
          serviceImpl.whoAmI((dev.quire.v1.WhoAmIRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.WhoAmIResponse>) responseObserver);
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
        default:
          throw new AssertionError();
      }
    }
  }

  public static final io.grpc.ServerServiceDefinition bindService(AsyncService service) {
    return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
        .addMethod(
          getSetRetrievalPolicyMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.SetRetrievalPolicyRequest,
              dev.quire.v1.SetRetrievalPolicyResponse>(
                service, METHODID_SET_RETRIEVAL_POLICY)))
        .addMethod(
          getGetRetrievalPolicyMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.GetRetrievalPolicyRequest,
              dev.quire.v1.GetRetrievalPolicyResponse>(
                service, METHODID_GET_RETRIEVAL_POLICY)))
        .addMethod(
          getSetKillSwitchMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.SetKillSwitchRequest,
              dev.quire.v1.SetKillSwitchResponse>(
                service, METHODID_SET_KILL_SWITCH)))
        .addMethod(
          getSetNamespaceSearchConfigMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.SetNamespaceSearchConfigRequest,
              dev.quire.v1.SetNamespaceSearchConfigResponse>(
                service, METHODID_SET_NAMESPACE_SEARCH_CONFIG)))
        .addMethod(
          getRebuildIndexMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.RebuildIndexRequest,
              dev.quire.v1.RebuildIndexResponse>(
                service, METHODID_REBUILD_INDEX)))
        .addMethod(
          getRollbackIndexMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.RollbackIndexRequest,
              dev.quire.v1.RollbackIndexResponse>(
                service, METHODID_ROLLBACK_INDEX)))
        .addMethod(
          getRunGateMethod(),
          io.grpc.stub.ServerCalls.asyncServerStreamingCall(
            new MethodHandlers<
              dev.quire.v1.RunGateRequest,
              dev.quire.v1.RunGateResponse>(
                service, METHODID_RUN_GATE)))
        .addMethod(
          getGetGateStatusMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.GetGateStatusRequest,
              dev.quire.v1.GetGateStatusResponse>(
                service, METHODID_GET_GATE_STATUS)))
        .addMethod(
          getGetShadowReportMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.GetShadowReportRequest,
              dev.quire.v1.GetShadowReportResponse>(
                service, METHODID_GET_SHADOW_REPORT)))
        .addMethod(
          getCreateApiKeyMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.CreateApiKeyRequest,
              dev.quire.v1.CreateApiKeyResponse>(
                service, METHODID_CREATE_API_KEY)))
        .addMethod(
          getRevokeApiKeyMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.RevokeApiKeyRequest,
              dev.quire.v1.RevokeApiKeyResponse>(
                service, METHODID_REVOKE_API_KEY)))
        .addMethod(
          getListApiKeysMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.ListApiKeysRequest,
              dev.quire.v1.ListApiKeysResponse>(
                service, METHODID_LIST_API_KEYS)))
        .addMethod(
          getWhoAmIMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.WhoAmIRequest,
              dev.quire.v1.WhoAmIResponse>(
                service, METHODID_WHO_AM_I)))
        .build();
  }

  private static abstract class AdminServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    AdminServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.quire.v1.AdminServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("AdminService");
    }
  }

  private static final class AdminServiceFileDescriptorSupplier
      extends AdminServiceBaseDescriptorSupplier {
    AdminServiceFileDescriptorSupplier() {}
  }

  private static final class AdminServiceMethodDescriptorSupplier
      extends AdminServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    AdminServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (AdminServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new AdminServiceFileDescriptorSupplier())
              .addMethod(getSetRetrievalPolicyMethod())
              .addMethod(getGetRetrievalPolicyMethod())
              .addMethod(getSetKillSwitchMethod())
              .addMethod(getSetNamespaceSearchConfigMethod())
              .addMethod(getRebuildIndexMethod())
              .addMethod(getRollbackIndexMethod())
              .addMethod(getRunGateMethod())
              .addMethod(getGetGateStatusMethod())
              .addMethod(getGetShadowReportMethod())
              .addMethod(getCreateApiKeyMethod())
              .addMethod(getRevokeApiKeyMethod())
              .addMethod(getListApiKeysMethod())
              .addMethod(getWhoAmIMethod())
              .build();
        }
      }
    }
    return result;
  }
}
