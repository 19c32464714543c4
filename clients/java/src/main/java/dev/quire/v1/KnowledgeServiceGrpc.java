package dev.quire.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Knowledge collections: an organisation's uploaded files, extracted and indexed, attached to
 * agents and searched with the organisation's retrieval mode.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class KnowledgeServiceGrpc {

  private KnowledgeServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "quire.v1.KnowledgeService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.CreateCollectionRequest,
      dev.quire.v1.CreateCollectionResponse> getCreateCollectionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateCollection",
      requestType = dev.quire.v1.CreateCollectionRequest.class,
      responseType = dev.quire.v1.CreateCollectionResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.CreateCollectionRequest,
      dev.quire.v1.CreateCollectionResponse> getCreateCollectionMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.CreateCollectionRequest, dev.quire.v1.CreateCollectionResponse> getCreateCollectionMethod;
    if ((getCreateCollectionMethod = KnowledgeServiceGrpc.getCreateCollectionMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getCreateCollectionMethod = KnowledgeServiceGrpc.getCreateCollectionMethod) == null) {
          KnowledgeServiceGrpc.getCreateCollectionMethod = getCreateCollectionMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.CreateCollectionRequest, dev.quire.v1.CreateCollectionResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateCollection"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.CreateCollectionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.CreateCollectionResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("CreateCollection"))
              .build();
        }
      }
    }
    return getCreateCollectionMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.ListModelsRequest,
      dev.quire.v1.ListModelsResponse> getListModelsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListModels",
      requestType = dev.quire.v1.ListModelsRequest.class,
      responseType = dev.quire.v1.ListModelsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.ListModelsRequest,
      dev.quire.v1.ListModelsResponse> getListModelsMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.ListModelsRequest, dev.quire.v1.ListModelsResponse> getListModelsMethod;
    if ((getListModelsMethod = KnowledgeServiceGrpc.getListModelsMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getListModelsMethod = KnowledgeServiceGrpc.getListModelsMethod) == null) {
          KnowledgeServiceGrpc.getListModelsMethod = getListModelsMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.ListModelsRequest, dev.quire.v1.ListModelsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListModels"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ListModelsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ListModelsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("ListModels"))
              .build();
        }
      }
    }
    return getListModelsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.GetCollectionRequest,
      dev.quire.v1.GetCollectionResponse> getGetCollectionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetCollection",
      requestType = dev.quire.v1.GetCollectionRequest.class,
      responseType = dev.quire.v1.GetCollectionResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.GetCollectionRequest,
      dev.quire.v1.GetCollectionResponse> getGetCollectionMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.GetCollectionRequest, dev.quire.v1.GetCollectionResponse> getGetCollectionMethod;
    if ((getGetCollectionMethod = KnowledgeServiceGrpc.getGetCollectionMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getGetCollectionMethod = KnowledgeServiceGrpc.getGetCollectionMethod) == null) {
          KnowledgeServiceGrpc.getGetCollectionMethod = getGetCollectionMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.GetCollectionRequest, dev.quire.v1.GetCollectionResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetCollection"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GetCollectionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GetCollectionResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("GetCollection"))
              .build();
        }
      }
    }
    return getGetCollectionMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.ListCollectionsRequest,
      dev.quire.v1.ListCollectionsResponse> getListCollectionsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListCollections",
      requestType = dev.quire.v1.ListCollectionsRequest.class,
      responseType = dev.quire.v1.ListCollectionsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.ListCollectionsRequest,
      dev.quire.v1.ListCollectionsResponse> getListCollectionsMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.ListCollectionsRequest, dev.quire.v1.ListCollectionsResponse> getListCollectionsMethod;
    if ((getListCollectionsMethod = KnowledgeServiceGrpc.getListCollectionsMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getListCollectionsMethod = KnowledgeServiceGrpc.getListCollectionsMethod) == null) {
          KnowledgeServiceGrpc.getListCollectionsMethod = getListCollectionsMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.ListCollectionsRequest, dev.quire.v1.ListCollectionsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListCollections"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ListCollectionsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ListCollectionsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("ListCollections"))
              .build();
        }
      }
    }
    return getListCollectionsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.DeleteCollectionRequest,
      dev.quire.v1.DeleteCollectionResponse> getDeleteCollectionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteCollection",
      requestType = dev.quire.v1.DeleteCollectionRequest.class,
      responseType = dev.quire.v1.DeleteCollectionResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.DeleteCollectionRequest,
      dev.quire.v1.DeleteCollectionResponse> getDeleteCollectionMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.DeleteCollectionRequest, dev.quire.v1.DeleteCollectionResponse> getDeleteCollectionMethod;
    if ((getDeleteCollectionMethod = KnowledgeServiceGrpc.getDeleteCollectionMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getDeleteCollectionMethod = KnowledgeServiceGrpc.getDeleteCollectionMethod) == null) {
          KnowledgeServiceGrpc.getDeleteCollectionMethod = getDeleteCollectionMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.DeleteCollectionRequest, dev.quire.v1.DeleteCollectionResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteCollection"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.DeleteCollectionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.DeleteCollectionResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("DeleteCollection"))
              .build();
        }
      }
    }
    return getDeleteCollectionMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.UploadDocumentRequest,
      dev.quire.v1.UploadDocumentResponse> getUploadDocumentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "UploadDocument",
      requestType = dev.quire.v1.UploadDocumentRequest.class,
      responseType = dev.quire.v1.UploadDocumentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.CLIENT_STREAMING)
  public static io.grpc.MethodDescriptor<dev.quire.v1.UploadDocumentRequest,
      dev.quire.v1.UploadDocumentResponse> getUploadDocumentMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.UploadDocumentRequest, dev.quire.v1.UploadDocumentResponse> getUploadDocumentMethod;
    if ((getUploadDocumentMethod = KnowledgeServiceGrpc.getUploadDocumentMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getUploadDocumentMethod = KnowledgeServiceGrpc.getUploadDocumentMethod) == null) {
          KnowledgeServiceGrpc.getUploadDocumentMethod = getUploadDocumentMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.UploadDocumentRequest, dev.quire.v1.UploadDocumentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.CLIENT_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "UploadDocument"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.UploadDocumentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.UploadDocumentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("UploadDocument"))
              .build();
        }
      }
    }
    return getUploadDocumentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.UploadDocumentsRequest,
      dev.quire.v1.UploadDocumentsResponse> getUploadDocumentsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "UploadDocuments",
      requestType = dev.quire.v1.UploadDocumentsRequest.class,
      responseType = dev.quire.v1.UploadDocumentsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.CLIENT_STREAMING)
  public static io.grpc.MethodDescriptor<dev.quire.v1.UploadDocumentsRequest,
      dev.quire.v1.UploadDocumentsResponse> getUploadDocumentsMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.UploadDocumentsRequest, dev.quire.v1.UploadDocumentsResponse> getUploadDocumentsMethod;
    if ((getUploadDocumentsMethod = KnowledgeServiceGrpc.getUploadDocumentsMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getUploadDocumentsMethod = KnowledgeServiceGrpc.getUploadDocumentsMethod) == null) {
          KnowledgeServiceGrpc.getUploadDocumentsMethod = getUploadDocumentsMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.UploadDocumentsRequest, dev.quire.v1.UploadDocumentsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.CLIENT_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "UploadDocuments"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.UploadDocumentsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.UploadDocumentsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("UploadDocuments"))
              .build();
        }
      }
    }
    return getUploadDocumentsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.GetDocumentRequest,
      dev.quire.v1.GetDocumentResponse> getGetDocumentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetDocument",
      requestType = dev.quire.v1.GetDocumentRequest.class,
      responseType = dev.quire.v1.GetDocumentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.GetDocumentRequest,
      dev.quire.v1.GetDocumentResponse> getGetDocumentMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.GetDocumentRequest, dev.quire.v1.GetDocumentResponse> getGetDocumentMethod;
    if ((getGetDocumentMethod = KnowledgeServiceGrpc.getGetDocumentMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getGetDocumentMethod = KnowledgeServiceGrpc.getGetDocumentMethod) == null) {
          KnowledgeServiceGrpc.getGetDocumentMethod = getGetDocumentMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.GetDocumentRequest, dev.quire.v1.GetDocumentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetDocument"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GetDocumentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GetDocumentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("GetDocument"))
              .build();
        }
      }
    }
    return getGetDocumentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.ListDocumentsRequest,
      dev.quire.v1.ListDocumentsResponse> getListDocumentsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListDocuments",
      requestType = dev.quire.v1.ListDocumentsRequest.class,
      responseType = dev.quire.v1.ListDocumentsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.ListDocumentsRequest,
      dev.quire.v1.ListDocumentsResponse> getListDocumentsMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.ListDocumentsRequest, dev.quire.v1.ListDocumentsResponse> getListDocumentsMethod;
    if ((getListDocumentsMethod = KnowledgeServiceGrpc.getListDocumentsMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getListDocumentsMethod = KnowledgeServiceGrpc.getListDocumentsMethod) == null) {
          KnowledgeServiceGrpc.getListDocumentsMethod = getListDocumentsMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.ListDocumentsRequest, dev.quire.v1.ListDocumentsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListDocuments"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ListDocumentsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ListDocumentsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("ListDocuments"))
              .build();
        }
      }
    }
    return getListDocumentsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.DeleteDocumentRequest,
      dev.quire.v1.DeleteDocumentResponse> getDeleteDocumentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteDocument",
      requestType = dev.quire.v1.DeleteDocumentRequest.class,
      responseType = dev.quire.v1.DeleteDocumentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.DeleteDocumentRequest,
      dev.quire.v1.DeleteDocumentResponse> getDeleteDocumentMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.DeleteDocumentRequest, dev.quire.v1.DeleteDocumentResponse> getDeleteDocumentMethod;
    if ((getDeleteDocumentMethod = KnowledgeServiceGrpc.getDeleteDocumentMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getDeleteDocumentMethod = KnowledgeServiceGrpc.getDeleteDocumentMethod) == null) {
          KnowledgeServiceGrpc.getDeleteDocumentMethod = getDeleteDocumentMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.DeleteDocumentRequest, dev.quire.v1.DeleteDocumentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteDocument"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.DeleteDocumentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.DeleteDocumentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("DeleteDocument"))
              .build();
        }
      }
    }
    return getDeleteDocumentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.DeleteDocumentsRequest,
      dev.quire.v1.DeleteDocumentsResponse> getDeleteDocumentsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteDocuments",
      requestType = dev.quire.v1.DeleteDocumentsRequest.class,
      responseType = dev.quire.v1.DeleteDocumentsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.DeleteDocumentsRequest,
      dev.quire.v1.DeleteDocumentsResponse> getDeleteDocumentsMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.DeleteDocumentsRequest, dev.quire.v1.DeleteDocumentsResponse> getDeleteDocumentsMethod;
    if ((getDeleteDocumentsMethod = KnowledgeServiceGrpc.getDeleteDocumentsMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getDeleteDocumentsMethod = KnowledgeServiceGrpc.getDeleteDocumentsMethod) == null) {
          KnowledgeServiceGrpc.getDeleteDocumentsMethod = getDeleteDocumentsMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.DeleteDocumentsRequest, dev.quire.v1.DeleteDocumentsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteDocuments"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.DeleteDocumentsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.DeleteDocumentsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("DeleteDocuments"))
              .build();
        }
      }
    }
    return getDeleteDocumentsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.UpdateDocumentMetadataRequest,
      dev.quire.v1.UpdateDocumentMetadataResponse> getUpdateDocumentMetadataMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "UpdateDocumentMetadata",
      requestType = dev.quire.v1.UpdateDocumentMetadataRequest.class,
      responseType = dev.quire.v1.UpdateDocumentMetadataResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.UpdateDocumentMetadataRequest,
      dev.quire.v1.UpdateDocumentMetadataResponse> getUpdateDocumentMetadataMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.UpdateDocumentMetadataRequest, dev.quire.v1.UpdateDocumentMetadataResponse> getUpdateDocumentMetadataMethod;
    if ((getUpdateDocumentMetadataMethod = KnowledgeServiceGrpc.getUpdateDocumentMetadataMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getUpdateDocumentMetadataMethod = KnowledgeServiceGrpc.getUpdateDocumentMetadataMethod) == null) {
          KnowledgeServiceGrpc.getUpdateDocumentMetadataMethod = getUpdateDocumentMetadataMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.UpdateDocumentMetadataRequest, dev.quire.v1.UpdateDocumentMetadataResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "UpdateDocumentMetadata"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.UpdateDocumentMetadataRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.UpdateDocumentMetadataResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("UpdateDocumentMetadata"))
              .build();
        }
      }
    }
    return getUpdateDocumentMetadataMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.WatchDocumentsRequest,
      dev.quire.v1.WatchDocumentsResponse> getWatchDocumentsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "WatchDocuments",
      requestType = dev.quire.v1.WatchDocumentsRequest.class,
      responseType = dev.quire.v1.WatchDocumentsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.quire.v1.WatchDocumentsRequest,
      dev.quire.v1.WatchDocumentsResponse> getWatchDocumentsMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.WatchDocumentsRequest, dev.quire.v1.WatchDocumentsResponse> getWatchDocumentsMethod;
    if ((getWatchDocumentsMethod = KnowledgeServiceGrpc.getWatchDocumentsMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getWatchDocumentsMethod = KnowledgeServiceGrpc.getWatchDocumentsMethod) == null) {
          KnowledgeServiceGrpc.getWatchDocumentsMethod = getWatchDocumentsMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.WatchDocumentsRequest, dev.quire.v1.WatchDocumentsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "WatchDocuments"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.WatchDocumentsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.WatchDocumentsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("WatchDocuments"))
              .build();
        }
      }
    }
    return getWatchDocumentsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.UpsertAgentRequest,
      dev.quire.v1.UpsertAgentResponse> getUpsertAgentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "UpsertAgent",
      requestType = dev.quire.v1.UpsertAgentRequest.class,
      responseType = dev.quire.v1.UpsertAgentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.UpsertAgentRequest,
      dev.quire.v1.UpsertAgentResponse> getUpsertAgentMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.UpsertAgentRequest, dev.quire.v1.UpsertAgentResponse> getUpsertAgentMethod;
    if ((getUpsertAgentMethod = KnowledgeServiceGrpc.getUpsertAgentMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getUpsertAgentMethod = KnowledgeServiceGrpc.getUpsertAgentMethod) == null) {
          KnowledgeServiceGrpc.getUpsertAgentMethod = getUpsertAgentMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.UpsertAgentRequest, dev.quire.v1.UpsertAgentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "UpsertAgent"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.UpsertAgentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.UpsertAgentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("UpsertAgent"))
              .build();
        }
      }
    }
    return getUpsertAgentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.GetAgentRequest,
      dev.quire.v1.GetAgentResponse> getGetAgentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetAgent",
      requestType = dev.quire.v1.GetAgentRequest.class,
      responseType = dev.quire.v1.GetAgentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.GetAgentRequest,
      dev.quire.v1.GetAgentResponse> getGetAgentMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.GetAgentRequest, dev.quire.v1.GetAgentResponse> getGetAgentMethod;
    if ((getGetAgentMethod = KnowledgeServiceGrpc.getGetAgentMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getGetAgentMethod = KnowledgeServiceGrpc.getGetAgentMethod) == null) {
          KnowledgeServiceGrpc.getGetAgentMethod = getGetAgentMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.GetAgentRequest, dev.quire.v1.GetAgentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetAgent"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GetAgentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GetAgentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("GetAgent"))
              .build();
        }
      }
    }
    return getGetAgentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.DeleteAgentRequest,
      dev.quire.v1.DeleteAgentResponse> getDeleteAgentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteAgent",
      requestType = dev.quire.v1.DeleteAgentRequest.class,
      responseType = dev.quire.v1.DeleteAgentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.DeleteAgentRequest,
      dev.quire.v1.DeleteAgentResponse> getDeleteAgentMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.DeleteAgentRequest, dev.quire.v1.DeleteAgentResponse> getDeleteAgentMethod;
    if ((getDeleteAgentMethod = KnowledgeServiceGrpc.getDeleteAgentMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getDeleteAgentMethod = KnowledgeServiceGrpc.getDeleteAgentMethod) == null) {
          KnowledgeServiceGrpc.getDeleteAgentMethod = getDeleteAgentMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.DeleteAgentRequest, dev.quire.v1.DeleteAgentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteAgent"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.DeleteAgentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.DeleteAgentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("DeleteAgent"))
              .build();
        }
      }
    }
    return getDeleteAgentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.ListAgentsRequest,
      dev.quire.v1.ListAgentsResponse> getListAgentsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListAgents",
      requestType = dev.quire.v1.ListAgentsRequest.class,
      responseType = dev.quire.v1.ListAgentsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.ListAgentsRequest,
      dev.quire.v1.ListAgentsResponse> getListAgentsMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.ListAgentsRequest, dev.quire.v1.ListAgentsResponse> getListAgentsMethod;
    if ((getListAgentsMethod = KnowledgeServiceGrpc.getListAgentsMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getListAgentsMethod = KnowledgeServiceGrpc.getListAgentsMethod) == null) {
          KnowledgeServiceGrpc.getListAgentsMethod = getListAgentsMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.ListAgentsRequest, dev.quire.v1.ListAgentsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListAgents"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ListAgentsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ListAgentsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("ListAgents"))
              .build();
        }
      }
    }
    return getListAgentsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.SearchKnowledgeRequest,
      dev.quire.v1.SearchKnowledgeResponse> getSearchKnowledgeMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SearchKnowledge",
      requestType = dev.quire.v1.SearchKnowledgeRequest.class,
      responseType = dev.quire.v1.SearchKnowledgeResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.SearchKnowledgeRequest,
      dev.quire.v1.SearchKnowledgeResponse> getSearchKnowledgeMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.SearchKnowledgeRequest, dev.quire.v1.SearchKnowledgeResponse> getSearchKnowledgeMethod;
    if ((getSearchKnowledgeMethod = KnowledgeServiceGrpc.getSearchKnowledgeMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getSearchKnowledgeMethod = KnowledgeServiceGrpc.getSearchKnowledgeMethod) == null) {
          KnowledgeServiceGrpc.getSearchKnowledgeMethod = getSearchKnowledgeMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.SearchKnowledgeRequest, dev.quire.v1.SearchKnowledgeResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SearchKnowledge"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.SearchKnowledgeRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.SearchKnowledgeResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("SearchKnowledge"))
              .build();
        }
      }
    }
    return getSearchKnowledgeMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.ReadDocumentRequest,
      dev.quire.v1.ReadDocumentResponse> getReadDocumentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReadDocument",
      requestType = dev.quire.v1.ReadDocumentRequest.class,
      responseType = dev.quire.v1.ReadDocumentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.ReadDocumentRequest,
      dev.quire.v1.ReadDocumentResponse> getReadDocumentMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.ReadDocumentRequest, dev.quire.v1.ReadDocumentResponse> getReadDocumentMethod;
    if ((getReadDocumentMethod = KnowledgeServiceGrpc.getReadDocumentMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getReadDocumentMethod = KnowledgeServiceGrpc.getReadDocumentMethod) == null) {
          KnowledgeServiceGrpc.getReadDocumentMethod = getReadDocumentMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.ReadDocumentRequest, dev.quire.v1.ReadDocumentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReadDocument"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ReadDocumentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.ReadDocumentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("ReadDocument"))
              .build();
        }
      }
    }
    return getReadDocumentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.GetIndexStatusRequest,
      dev.quire.v1.GetIndexStatusResponse> getGetIndexStatusMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetIndexStatus",
      requestType = dev.quire.v1.GetIndexStatusRequest.class,
      responseType = dev.quire.v1.GetIndexStatusResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.quire.v1.GetIndexStatusRequest,
      dev.quire.v1.GetIndexStatusResponse> getGetIndexStatusMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.GetIndexStatusRequest, dev.quire.v1.GetIndexStatusResponse> getGetIndexStatusMethod;
    if ((getGetIndexStatusMethod = KnowledgeServiceGrpc.getGetIndexStatusMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getGetIndexStatusMethod = KnowledgeServiceGrpc.getGetIndexStatusMethod) == null) {
          KnowledgeServiceGrpc.getGetIndexStatusMethod = getGetIndexStatusMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.GetIndexStatusRequest, dev.quire.v1.GetIndexStatusResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetIndexStatus"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GetIndexStatusRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.GetIndexStatusResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("GetIndexStatus"))
              .build();
        }
      }
    }
    return getGetIndexStatusMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.quire.v1.WatchIndexStatusRequest,
      dev.quire.v1.WatchIndexStatusResponse> getWatchIndexStatusMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "WatchIndexStatus",
      requestType = dev.quire.v1.WatchIndexStatusRequest.class,
      responseType = dev.quire.v1.WatchIndexStatusResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.quire.v1.WatchIndexStatusRequest,
      dev.quire.v1.WatchIndexStatusResponse> getWatchIndexStatusMethod() {
    io.grpc.MethodDescriptor<dev.quire.v1.WatchIndexStatusRequest, dev.quire.v1.WatchIndexStatusResponse> getWatchIndexStatusMethod;
    if ((getWatchIndexStatusMethod = KnowledgeServiceGrpc.getWatchIndexStatusMethod) == null) {
      synchronized (KnowledgeServiceGrpc.class) {
        if ((getWatchIndexStatusMethod = KnowledgeServiceGrpc.getWatchIndexStatusMethod) == null) {
          KnowledgeServiceGrpc.getWatchIndexStatusMethod = getWatchIndexStatusMethod =
              io.grpc.MethodDescriptor.<dev.quire.v1.WatchIndexStatusRequest, dev.quire.v1.WatchIndexStatusResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "WatchIndexStatus"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.WatchIndexStatusRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.quire.v1.WatchIndexStatusResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KnowledgeServiceMethodDescriptorSupplier("WatchIndexStatus"))
              .build();
        }
      }
    }
    return getWatchIndexStatusMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static KnowledgeServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<KnowledgeServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<KnowledgeServiceStub>() {
        @java.lang.Override
        public KnowledgeServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new KnowledgeServiceStub(channel, callOptions);
        }
      };
    return KnowledgeServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static KnowledgeServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<KnowledgeServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<KnowledgeServiceBlockingV2Stub>() {
        @java.lang.Override
        public KnowledgeServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new KnowledgeServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return KnowledgeServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static KnowledgeServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<KnowledgeServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<KnowledgeServiceBlockingStub>() {
        @java.lang.Override
        public KnowledgeServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new KnowledgeServiceBlockingStub(channel, callOptions);
        }
      };
    return KnowledgeServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static KnowledgeServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<KnowledgeServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<KnowledgeServiceFutureStub>() {
        @java.lang.Override
        public KnowledgeServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new KnowledgeServiceFutureStub(channel, callOptions);
        }
      };
    return KnowledgeServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Knowledge collections: an organisation's uploaded files, extracted and indexed, attached to
   * agents and searched with the organisation's retrieval mode.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Creates a collection (name 1–200 characters, unique among non-deleted collections).
     * </pre>
     */
    default void createCollection(dev.quire.v1.CreateCollectionRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.CreateCollectionResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateCollectionMethod(), responseObserver);
    }

    /**
     * <pre>
     * The embedding models the deployment knows: dimensions, whether each is prepared and
     * loaded, and which is the default.
     * </pre>
     */
    default void listModels(dev.quire.v1.ListModelsRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ListModelsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListModelsMethod(), responseObserver);
    }

    /**
     * <pre>
     * One collection of the caller's organisation, by id.
     * </pre>
     */
    default void getCollection(dev.quire.v1.GetCollectionRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GetCollectionResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetCollectionMethod(), responseObserver);
    }

    /**
     * <pre>
     * Non-deleted collections by name.
     * </pre>
     */
    default void listCollections(dev.quire.v1.ListCollectionsRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ListCollectionsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListCollectionsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Soft-deletes: the collection vanishes from every read at once.
     * </pre>
     */
    default void deleteCollection(dev.quire.v1.DeleteCollectionRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.DeleteCollectionResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteCollectionMethod(), responseObserver);
    }

    /**
     * <pre>
     * Client stream: first message `metadata`, then `data` chunks. Over the size limit:
     * PAYLOAD_TOO_LARGE; unknown type: UNSUPPORTED_MEDIA_TYPE. Setting metadata.document_id
     * replaces that document's content (an edit). Advances the collection revision.
     * </pre>
     */
    default io.grpc.stub.StreamObserver<dev.quire.v1.UploadDocumentRequest> uploadDocument(
        io.grpc.stub.StreamObserver<dev.quire.v1.UploadDocumentResponse> responseObserver) {
      return io.grpc.stub.ServerCalls.asyncUnimplementedStreamingCall(getUploadDocumentMethod(), responseObserver);
    }

    /**
     * <pre>
     * Client stream of many documents: each `metadata` message starts a document, the `data`
     * messages after it are its bytes. At most 1,000 documents and QUIRE_MAX_UPLOAD_BYTES in all.
     * A document the server refuses (unknown type, bad key or metadata, too large, unknown
     * collection) gets its error in its result and the others are stored; all stored ones are
     * written in one transaction at the end.
     * </pre>
     */
    default io.grpc.stub.StreamObserver<dev.quire.v1.UploadDocumentsRequest> uploadDocuments(
        io.grpc.stub.StreamObserver<dev.quire.v1.UploadDocumentsResponse> responseObserver) {
      return io.grpc.stub.ServerCalls.asyncUnimplementedStreamingCall(getUploadDocumentsMethod(), responseObserver);
    }

    /**
     * <pre>
     * One document's metadata and indexing status, by id or by (collection, external key).
     * </pre>
     */
    default void getDocument(dev.quire.v1.GetDocumentRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GetDocumentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetDocumentMethod(), responseObserver);
    }

    /**
     * <pre>
     * Documents of a collection, newest first, paged.
     * </pre>
     */
    default void listDocuments(dev.quire.v1.ListDocumentsRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ListDocumentsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListDocumentsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Removes a document, by id or by (collection, external key); advances the collection
     * revision.
     * </pre>
     */
    default void deleteDocument(dev.quire.v1.DeleteDocumentRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.DeleteDocumentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteDocumentMethod(), responseObserver);
    }

    /**
     * <pre>
     * Removes a collection's documents named by external keys, by ids, or matching a metadata
     * filter, in one transaction; advances the collection revision once.
     * </pre>
     */
    default void deleteDocuments(dev.quire.v1.DeleteDocumentsRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.DeleteDocumentsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteDocumentsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Changes a document's metadata (a JSON merge patch, or a replacement) without re-uploading
     * or re-extracting it; advances the collection revision.
     * </pre>
     */
    default void updateDocumentMetadata(dev.quire.v1.UpdateDocumentMetadataRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.UpdateDocumentMetadataResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getUpdateDocumentMetadataMethod(), responseObserver);
    }

    /**
     * <pre>
     * Streams every document's current state, then a Document each time one is added, changes
     * status or is deleted (status DELETED) in the collection.
     * </pre>
     */
    default void watchDocuments(dev.quire.v1.WatchDocumentsRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.WatchDocumentsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getWatchDocumentsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Creates or replaces an agent's attachments; increments config_version.
     * </pre>
     */
    default void upsertAgent(dev.quire.v1.UpsertAgentRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.UpsertAgentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getUpsertAgentMethod(), responseObserver);
    }

    /**
     * <pre>
     * An agent's attachments and config_version.
     * </pre>
     */
    default void getAgent(dev.quire.v1.GetAgentRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GetAgentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetAgentMethod(), responseObserver);
    }

    /**
     * <pre>
     * Deletes an agent; its collections are untouched. An unknown agent is AGENT_NOT_FOUND.
     * </pre>
     */
    default void deleteAgent(dev.quire.v1.DeleteAgentRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.DeleteAgentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteAgentMethod(), responseObserver);
    }

    /**
     * <pre>
     * The organisation's agents by id, paged.
     * </pre>
     */
    default void listAgents(dev.quire.v1.ListAgentsRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ListAgentsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListAgentsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Searches the agent's current attachments (or the given collections) with the
     * organisation's retrieval mode. Blank query or no collection: empty result.
     * </pre>
     */
    default void searchKnowledge(dev.quire.v1.SearchKnowledgeRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.SearchKnowledgeResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSearchKnowledgeMethod(), responseObserver);
    }

    /**
     * <pre>
     * Reads up to 4,000 code points of a document's current extracted text.
     * </pre>
     */
    default void readDocument(dev.quire.v1.ReadDocumentRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ReadDocumentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReadDocumentMethod(), responseObserver);
    }

    /**
     * <pre>
     * The serving and building index generations of a collection.
     * </pre>
     */
    default void getIndexStatus(dev.quire.v1.GetIndexStatusRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GetIndexStatusResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetIndexStatusMethod(), responseObserver);
    }

    /**
     * <pre>
     * Streams IndexStatus whenever a generation of the collection makes progress or changes state.
     * </pre>
     */
    default void watchIndexStatus(dev.quire.v1.WatchIndexStatusRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.WatchIndexStatusResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getWatchIndexStatusMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service KnowledgeService.
   * <pre>
   * Knowledge collections: an organisation's uploaded files, extracted and indexed, attached to
   * agents and searched with the organisation's retrieval mode.
   * </pre>
   */
  public static abstract class KnowledgeServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return KnowledgeServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service KnowledgeService.
   * <pre>
   * Knowledge collections: an organisation's uploaded files, extracted and indexed, attached to
   * agents and searched with the organisation's retrieval mode.
   * </pre>
   */
  public static final class KnowledgeServiceStub
      extends io.grpc.stub.AbstractAsyncStub<KnowledgeServiceStub> {
    private KnowledgeServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected KnowledgeServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new KnowledgeServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a collection (name 1–200 characters, unique among non-deleted collections).
     * </pre>
     */
    public void createCollection(dev.quire.v1.CreateCollectionRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.CreateCollectionResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateCollectionMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The embedding models the deployment knows: dimensions, whether each is prepared and
     * loaded, and which is the default.
     * </pre>
     */
    public void listModels(dev.quire.v1.ListModelsRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ListModelsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListModelsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * One collection of the caller's organisation, by id.
     * </pre>
     */
    public void getCollection(dev.quire.v1.GetCollectionRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GetCollectionResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetCollectionMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Non-deleted collections by name.
     * </pre>
     */
    public void listCollections(dev.quire.v1.ListCollectionsRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ListCollectionsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListCollectionsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Soft-deletes: the collection vanishes from every read at once.
     * </pre>
     */
    public void deleteCollection(dev.quire.v1.DeleteCollectionRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.DeleteCollectionResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteCollectionMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Client stream: first message `metadata`, then `data` chunks. Over the size limit:
     * PAYLOAD_TOO_LARGE; unknown type: UNSUPPORTED_MEDIA_TYPE. Setting metadata.document_id
     * replaces that document's content (an edit). Advances the collection revision.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<dev.quire.v1.UploadDocumentRequest> uploadDocument(
        io.grpc.stub.StreamObserver<dev.quire.v1.UploadDocumentResponse> responseObserver) {
      return io.grpc.stub.ClientCalls.asyncClientStreamingCall(
          getChannel().newCall(getUploadDocumentMethod(), getCallOptions()), responseObserver);
    }

    /**
     * <pre>
     * Client stream of many documents: each `metadata` message starts a document, the `data`
     * messages after it are its bytes. At most 1,000 documents and QUIRE_MAX_UPLOAD_BYTES in all.
     * A document the server refuses (unknown type, bad key or metadata, too large, unknown
     * collection) gets its error in its result and the others are stored; all stored ones are
     * written in one transaction at the end.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<dev.quire.v1.UploadDocumentsRequest> uploadDocuments(
        io.grpc.stub.StreamObserver<dev.quire.v1.UploadDocumentsResponse> responseObserver) {
      return io.grpc.stub.ClientCalls.asyncClientStreamingCall(
          getChannel().newCall(getUploadDocumentsMethod(), getCallOptions()), responseObserver);
    }

    /**
     * <pre>
     * One document's metadata and indexing status, by id or by (collection, external key).
     * </pre>
     */
    public void getDocument(dev.quire.v1.GetDocumentRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GetDocumentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetDocumentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Documents of a collection, newest first, paged.
     * </pre>
     */
    public void listDocuments(dev.quire.v1.ListDocumentsRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ListDocumentsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListDocumentsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Removes a document, by id or by (collection, external key); advances the collection
     * revision.
     * </pre>
     */
    public void deleteDocument(dev.quire.v1.DeleteDocumentRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.DeleteDocumentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteDocumentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Removes a collection's documents named by external keys, by ids, or matching a metadata
     * filter, in one transaction; advances the collection revision once.
     * </pre>
     */
    public void deleteDocuments(dev.quire.v1.DeleteDocumentsRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.DeleteDocumentsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteDocumentsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Changes a document's metadata (a JSON merge patch, or a replacement) without re-uploading
     * or re-extracting it; advances the collection revision.
     * </pre>
     */
    public void updateDocumentMetadata(dev.quire.v1.UpdateDocumentMetadataRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.UpdateDocumentMetadataResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getUpdateDocumentMetadataMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Streams every document's current state, then a Document each time one is added, changes
     * status or is deleted (status DELETED) in the collection.
     * </pre>
     */
    public void watchDocuments(dev.quire.v1.WatchDocumentsRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.WatchDocumentsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getWatchDocumentsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Creates or replaces an agent's attachments; increments config_version.
     * </pre>
     */
    public void upsertAgent(dev.quire.v1.UpsertAgentRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.UpsertAgentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getUpsertAgentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * An agent's attachments and config_version.
     * </pre>
     */
    public void getAgent(dev.quire.v1.GetAgentRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GetAgentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetAgentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Deletes an agent; its collections are untouched. An unknown agent is AGENT_NOT_FOUND.
     * </pre>
     */
    public void deleteAgent(dev.quire.v1.DeleteAgentRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.DeleteAgentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteAgentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The organisation's agents by id, paged.
     * </pre>
     */
    public void listAgents(dev.quire.v1.ListAgentsRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ListAgentsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListAgentsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Searches the agent's current attachments (or the given collections) with the
     * organisation's retrieval mode. Blank query or no collection: empty result.
     * </pre>
     */
    public void searchKnowledge(dev.quire.v1.SearchKnowledgeRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.SearchKnowledgeResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSearchKnowledgeMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Reads up to 4,000 code points of a document's current extracted text.
     * </pre>
     */
    public void readDocument(dev.quire.v1.ReadDocumentRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.ReadDocumentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReadDocumentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The serving and building index generations of a collection.
     * </pre>
     */
    public void getIndexStatus(dev.quire.v1.GetIndexStatusRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.GetIndexStatusResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetIndexStatusMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Streams IndexStatus whenever a generation of the collection makes progress or changes state.
     * </pre>
     */
    public void watchIndexStatus(dev.quire.v1.WatchIndexStatusRequest request,
        io.grpc.stub.StreamObserver<dev.quire.v1.WatchIndexStatusResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getWatchIndexStatusMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service KnowledgeService.
   * <pre>
   * Knowledge collections: an organisation's uploaded files, extracted and indexed, attached to
   * agents and searched with the organisation's retrieval mode.
   * </pre>
   */
  public static final class KnowledgeServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<KnowledgeServiceBlockingV2Stub> {
    private KnowledgeServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected KnowledgeServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new KnowledgeServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a collection (name 1–200 characters, unique among non-deleted collections).
     * </pre>
     */
    public dev.quire.v1.CreateCollectionResponse createCollection(dev.quire.v1.CreateCollectionRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCreateCollectionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The embedding models the deployment knows: dimensions, whether each is prepared and
     * loaded, and which is the default.
     * </pre>
     */
    public dev.quire.v1.ListModelsResponse listModels(dev.quire.v1.ListModelsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListModelsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * One collection of the caller's organisation, by id.
     * </pre>
     */
    public dev.quire.v1.GetCollectionResponse getCollection(dev.quire.v1.GetCollectionRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetCollectionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Non-deleted collections by name.
     * </pre>
     */
    public dev.quire.v1.ListCollectionsResponse listCollections(dev.quire.v1.ListCollectionsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListCollectionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Soft-deletes: the collection vanishes from every read at once.
     * </pre>
     */
    public dev.quire.v1.DeleteCollectionResponse deleteCollection(dev.quire.v1.DeleteCollectionRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDeleteCollectionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Client stream: first message `metadata`, then `data` chunks. Over the size limit:
     * PAYLOAD_TOO_LARGE; unknown type: UNSUPPORTED_MEDIA_TYPE. Setting metadata.document_id
     * replaces that document's content (an edit). Advances the collection revision.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<dev.quire.v1.UploadDocumentRequest, dev.quire.v1.UploadDocumentResponse>
        uploadDocument() {
      return io.grpc.stub.ClientCalls.blockingClientStreamingCall(
          getChannel(), getUploadDocumentMethod(), getCallOptions());
    }

    /**
     * <pre>
     * Client stream of many documents: each `metadata` message starts a document, the `data`
     * messages after it are its bytes. At most 1,000 documents and QUIRE_MAX_UPLOAD_BYTES in all.
     * A document the server refuses (unknown type, bad key or metadata, too large, unknown
     * collection) gets its error in its result and the others are stored; all stored ones are
     * written in one transaction at the end.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<dev.quire.v1.UploadDocumentsRequest, dev.quire.v1.UploadDocumentsResponse>
        uploadDocuments() {
      return io.grpc.stub.ClientCalls.blockingClientStreamingCall(
          getChannel(), getUploadDocumentsMethod(), getCallOptions());
    }

    /**
     * <pre>
     * One document's metadata and indexing status, by id or by (collection, external key).
     * </pre>
     */
    public dev.quire.v1.GetDocumentResponse getDocument(dev.quire.v1.GetDocumentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetDocumentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Documents of a collection, newest first, paged.
     * </pre>
     */
    public dev.quire.v1.ListDocumentsResponse listDocuments(dev.quire.v1.ListDocumentsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListDocumentsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes a document, by id or by (collection, external key); advances the collection
     * revision.
     * </pre>
     */
    public dev.quire.v1.DeleteDocumentResponse deleteDocument(dev.quire.v1.DeleteDocumentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDeleteDocumentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes a collection's documents named by external keys, by ids, or matching a metadata
     * filter, in one transaction; advances the collection revision once.
     * </pre>
     */
    public dev.quire.v1.DeleteDocumentsResponse deleteDocuments(dev.quire.v1.DeleteDocumentsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDeleteDocumentsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Changes a document's metadata (a JSON merge patch, or a replacement) without re-uploading
     * or re-extracting it; advances the collection revision.
     * </pre>
     */
    public dev.quire.v1.UpdateDocumentMetadataResponse updateDocumentMetadata(dev.quire.v1.UpdateDocumentMetadataRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getUpdateDocumentMetadataMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams every document's current state, then a Document each time one is added, changes
     * status or is deleted (status DELETED) in the collection.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<?, dev.quire.v1.WatchDocumentsResponse>
        watchDocuments(dev.quire.v1.WatchDocumentsRequest request) {
      return io.grpc.stub.ClientCalls.blockingV2ServerStreamingCall(
          getChannel(), getWatchDocumentsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Creates or replaces an agent's attachments; increments config_version.
     * </pre>
     */
    public dev.quire.v1.UpsertAgentResponse upsertAgent(dev.quire.v1.UpsertAgentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getUpsertAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * An agent's attachments and config_version.
     * </pre>
     */
    public dev.quire.v1.GetAgentResponse getAgent(dev.quire.v1.GetAgentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes an agent; its collections are untouched. An unknown agent is AGENT_NOT_FOUND.
     * </pre>
     */
    public dev.quire.v1.DeleteAgentResponse deleteAgent(dev.quire.v1.DeleteAgentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDeleteAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The organisation's agents by id, paged.
     * </pre>
     */
    public dev.quire.v1.ListAgentsResponse listAgents(dev.quire.v1.ListAgentsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListAgentsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Searches the agent's current attachments (or the given collections) with the
     * organisation's retrieval mode. Blank query or no collection: empty result.
     * </pre>
     */
    public dev.quire.v1.SearchKnowledgeResponse searchKnowledge(dev.quire.v1.SearchKnowledgeRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSearchKnowledgeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Reads up to 4,000 code points of a document's current extracted text.
     * </pre>
     */
    public dev.quire.v1.ReadDocumentResponse readDocument(dev.quire.v1.ReadDocumentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getReadDocumentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The serving and building index generations of a collection.
     * </pre>
     */
    public dev.quire.v1.GetIndexStatusResponse getIndexStatus(dev.quire.v1.GetIndexStatusRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetIndexStatusMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams IndexStatus whenever a generation of the collection makes progress or changes state.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<?, dev.quire.v1.WatchIndexStatusResponse>
        watchIndexStatus(dev.quire.v1.WatchIndexStatusRequest request) {
      return io.grpc.stub.ClientCalls.blockingV2ServerStreamingCall(
          getChannel(), getWatchIndexStatusMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service KnowledgeService.
   * <pre>
   * Knowledge collections: an organisation's uploaded files, extracted and indexed, attached to
   * agents and searched with the organisation's retrieval mode.
   * </pre>
   */
  public static final class KnowledgeServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<KnowledgeServiceBlockingStub> {
    private KnowledgeServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected KnowledgeServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new KnowledgeServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a collection (name 1–200 characters, unique among non-deleted collections).
     * </pre>
     */
    public dev.quire.v1.CreateCollectionResponse createCollection(dev.quire.v1.CreateCollectionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateCollectionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The embedding models the deployment knows: dimensions, whether each is prepared and
     * loaded, and which is the default.
     * </pre>
     */
    public dev.quire.v1.ListModelsResponse listModels(dev.quire.v1.ListModelsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListModelsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * One collection of the caller's organisation, by id.
     * </pre>
     */
    public dev.quire.v1.GetCollectionResponse getCollection(dev.quire.v1.GetCollectionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetCollectionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Non-deleted collections by name.
     * </pre>
     */
    public dev.quire.v1.ListCollectionsResponse listCollections(dev.quire.v1.ListCollectionsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListCollectionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Soft-deletes: the collection vanishes from every read at once.
     * </pre>
     */
    public dev.quire.v1.DeleteCollectionResponse deleteCollection(dev.quire.v1.DeleteCollectionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteCollectionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * One document's metadata and indexing status, by id or by (collection, external key).
     * </pre>
     */
    public dev.quire.v1.GetDocumentResponse getDocument(dev.quire.v1.GetDocumentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetDocumentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Documents of a collection, newest first, paged.
     * </pre>
     */
    public dev.quire.v1.ListDocumentsResponse listDocuments(dev.quire.v1.ListDocumentsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListDocumentsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes a document, by id or by (collection, external key); advances the collection
     * revision.
     * </pre>
     */
    public dev.quire.v1.DeleteDocumentResponse deleteDocument(dev.quire.v1.DeleteDocumentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteDocumentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes a collection's documents named by external keys, by ids, or matching a metadata
     * filter, in one transaction; advances the collection revision once.
     * </pre>
     */
    public dev.quire.v1.DeleteDocumentsResponse deleteDocuments(dev.quire.v1.DeleteDocumentsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteDocumentsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Changes a document's metadata (a JSON merge patch, or a replacement) without re-uploading
     * or re-extracting it; advances the collection revision.
     * </pre>
     */
    public dev.quire.v1.UpdateDocumentMetadataResponse updateDocumentMetadata(dev.quire.v1.UpdateDocumentMetadataRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getUpdateDocumentMetadataMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams every document's current state, then a Document each time one is added, changes
     * status or is deleted (status DELETED) in the collection.
     * </pre>
     */
    public java.util.Iterator<dev.quire.v1.WatchDocumentsResponse> watchDocuments(
        dev.quire.v1.WatchDocumentsRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getWatchDocumentsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Creates or replaces an agent's attachments; increments config_version.
     * </pre>
     */
    public dev.quire.v1.UpsertAgentResponse upsertAgent(dev.quire.v1.UpsertAgentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getUpsertAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * An agent's attachments and config_version.
     * </pre>
     */
    public dev.quire.v1.GetAgentResponse getAgent(dev.quire.v1.GetAgentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes an agent; its collections are untouched. An unknown agent is AGENT_NOT_FOUND.
     * </pre>
     */
    public dev.quire.v1.DeleteAgentResponse deleteAgent(dev.quire.v1.DeleteAgentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The organisation's agents by id, paged.
     * </pre>
     */
    public dev.quire.v1.ListAgentsResponse listAgents(dev.quire.v1.ListAgentsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListAgentsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Searches the agent's current attachments (or the given collections) with the
     * organisation's retrieval mode. Blank query or no collection: empty result.
     * </pre>
     */
    public dev.quire.v1.SearchKnowledgeResponse searchKnowledge(dev.quire.v1.SearchKnowledgeRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSearchKnowledgeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Reads up to 4,000 code points of a document's current extracted text.
     * </pre>
     */
    public dev.quire.v1.ReadDocumentResponse readDocument(dev.quire.v1.ReadDocumentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReadDocumentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The serving and building index generations of a collection.
     * </pre>
     */
    public dev.quire.v1.GetIndexStatusResponse getIndexStatus(dev.quire.v1.GetIndexStatusRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetIndexStatusMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams IndexStatus whenever a generation of the collection makes progress or changes state.
     * </pre>
     */
    public java.util.Iterator<dev.quire.v1.WatchIndexStatusResponse> watchIndexStatus(
        dev.quire.v1.WatchIndexStatusRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getWatchIndexStatusMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service KnowledgeService.
   * <pre>
   * Knowledge collections: an organisation's uploaded files, extracted and indexed, attached to
   * agents and searched with the organisation's retrieval mode.
   * </pre>
   */
  public static final class KnowledgeServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<KnowledgeServiceFutureStub> {
    private KnowledgeServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected KnowledgeServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new KnowledgeServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a collection (name 1–200 characters, unique among non-deleted collections).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.CreateCollectionResponse> createCollection(
        dev.quire.v1.CreateCollectionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateCollectionMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The embedding models the deployment knows: dimensions, whether each is prepared and
     * loaded, and which is the default.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.ListModelsResponse> listModels(
        dev.quire.v1.ListModelsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListModelsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * One collection of the caller's organisation, by id.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.GetCollectionResponse> getCollection(
        dev.quire.v1.GetCollectionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetCollectionMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Non-deleted collections by name.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.ListCollectionsResponse> listCollections(
        dev.quire.v1.ListCollectionsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListCollectionsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Soft-deletes: the collection vanishes from every read at once.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.DeleteCollectionResponse> deleteCollection(
        dev.quire.v1.DeleteCollectionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteCollectionMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * One document's metadata and indexing status, by id or by (collection, external key).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.GetDocumentResponse> getDocument(
        dev.quire.v1.GetDocumentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetDocumentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Documents of a collection, newest first, paged.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.ListDocumentsResponse> listDocuments(
        dev.quire.v1.ListDocumentsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListDocumentsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Removes a document, by id or by (collection, external key); advances the collection
     * revision.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.DeleteDocumentResponse> deleteDocument(
        dev.quire.v1.DeleteDocumentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteDocumentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Removes a collection's documents named by external keys, by ids, or matching a metadata
     * filter, in one transaction; advances the collection revision once.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.DeleteDocumentsResponse> deleteDocuments(
        dev.quire.v1.DeleteDocumentsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteDocumentsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Changes a document's metadata (a JSON merge patch, or a replacement) without re-uploading
     * or re-extracting it; advances the collection revision.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.UpdateDocumentMetadataResponse> updateDocumentMetadata(
        dev.quire.v1.UpdateDocumentMetadataRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getUpdateDocumentMetadataMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Creates or replaces an agent's attachments; increments config_version.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.UpsertAgentResponse> upsertAgent(
        dev.quire.v1.UpsertAgentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getUpsertAgentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * An agent's attachments and config_version.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.GetAgentResponse> getAgent(
        dev.quire.v1.GetAgentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetAgentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Deletes an agent; its collections are untouched. An unknown agent is AGENT_NOT_FOUND.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.DeleteAgentResponse> deleteAgent(
        dev.quire.v1.DeleteAgentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteAgentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The organisation's agents by id, paged.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.ListAgentsResponse> listAgents(
        dev.quire.v1.ListAgentsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListAgentsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Searches the agent's current attachments (or the given collections) with the
     * organisation's retrieval mode. Blank query or no collection: empty result.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.SearchKnowledgeResponse> searchKnowledge(
        dev.quire.v1.SearchKnowledgeRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSearchKnowledgeMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Reads up to 4,000 code points of a document's current extracted text.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.ReadDocumentResponse> readDocument(
        dev.quire.v1.ReadDocumentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReadDocumentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The serving and building index generations of a collection.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.quire.v1.GetIndexStatusResponse> getIndexStatus(
        dev.quire.v1.GetIndexStatusRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetIndexStatusMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_CREATE_COLLECTION = 0;
  private static final int METHODID_LIST_MODELS = 1;
  private static final int METHODID_GET_COLLECTION = 2;
  private static final int METHODID_LIST_COLLECTIONS = 3;
  private static final int METHODID_DELETE_COLLECTION = 4;
  private static final int METHODID_GET_DOCUMENT = 5;
  private static final int METHODID_LIST_DOCUMENTS = 6;
  private static final int METHODID_DELETE_DOCUMENT = 7;
  private static final int METHODID_DELETE_DOCUMENTS = 8;
  private static final int METHODID_UPDATE_DOCUMENT_METADATA = 9;
  private static final int METHODID_WATCH_DOCUMENTS = 10;
  private static final int METHODID_UPSERT_AGENT = 11;
  private static final int METHODID_GET_AGENT = 12;
  private static final int METHODID_DELETE_AGENT = 13;
  private static final int METHODID_LIST_AGENTS = 14;
  private static final int METHODID_SEARCH_KNOWLEDGE = 15;
  private static final int METHODID_READ_DOCUMENT = 16;
  private static final int METHODID_GET_INDEX_STATUS = 17;
  private static final int METHODID_WATCH_INDEX_STATUS = 18;
  private static final int METHODID_UPLOAD_DOCUMENT = 19;
  private static final int METHODID_UPLOAD_DOCUMENTS = 20;

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
        case METHODID_CREATE_COLLECTION:
          serviceImpl.createCollection((dev.quire.v1.CreateCollectionRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.CreateCollectionResponse>) responseObserver);
          break;
        case METHODID_LIST_MODELS:
          serviceImpl.listModels((dev.quire.v1.ListModelsRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.ListModelsResponse>) responseObserver);
          break;
        case METHODID_GET_COLLECTION:
          serviceImpl.getCollection((dev.quire.v1.GetCollectionRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.GetCollectionResponse>) responseObserver);
          break;
        case METHODID_LIST_COLLECTIONS:
          serviceImpl.listCollections((dev.quire.v1.ListCollectionsRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.ListCollectionsResponse>) responseObserver);
          break;
        case METHODID_DELETE_COLLECTION:
          serviceImpl.deleteCollection((dev.quire.v1.DeleteCollectionRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.DeleteCollectionResponse>) responseObserver);
          break;
        case METHODID_GET_DOCUMENT:
          serviceImpl.getDocument((dev.quire.v1.GetDocumentRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.GetDocumentResponse>) responseObserver);
          break;
        case METHODID_LIST_DOCUMENTS:
          serviceImpl.listDocuments((dev.quire.v1.ListDocumentsRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.ListDocumentsResponse>) responseObserver);
          break;
        case METHODID_DELETE_DOCUMENT:
          serviceImpl.deleteDocument((dev.quire.v1.DeleteDocumentRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.DeleteDocumentResponse>) responseObserver);
          break;
        case METHODID_DELETE_DOCUMENTS:
          serviceImpl.deleteDocuments((dev.quire.v1.DeleteDocumentsRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.DeleteDocumentsResponse>) responseObserver);
          break;
        case METHODID_UPDATE_DOCUMENT_METADATA:
          serviceImpl.updateDocumentMetadata((dev.quire.v1.UpdateDocumentMetadataRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.UpdateDocumentMetadataResponse>) responseObserver);
          break;
        case METHODID_WATCH_DOCUMENTS:
          serviceImpl.watchDocuments((dev.quire.v1.WatchDocumentsRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.WatchDocumentsResponse>) responseObserver);
          break;
        case METHODID_UPSERT_AGENT:
          serviceImpl.upsertAgent((dev.quire.v1.UpsertAgentRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.UpsertAgentResponse>) responseObserver);
          break;
        case METHODID_GET_AGENT:
          serviceImpl.getAgent((dev.quire.v1.GetAgentRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.GetAgentResponse>) responseObserver);
          break;
        case METHODID_DELETE_AGENT:
          serviceImpl.deleteAgent((dev.quire.v1.DeleteAgentRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.DeleteAgentResponse>) responseObserver);
          break;
        case METHODID_LIST_AGENTS:
          serviceImpl.listAgents((dev.quire.v1.ListAgentsRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.ListAgentsResponse>) responseObserver);
          break;
        case METHODID_SEARCH_KNOWLEDGE:
          serviceImpl.searchKnowledge((dev.quire.v1.SearchKnowledgeRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.SearchKnowledgeResponse>) responseObserver);
          break;
        case METHODID_READ_DOCUMENT:
          serviceImpl.readDocument((dev.quire.v1.ReadDocumentRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.ReadDocumentResponse>) responseObserver);
          break;
        case METHODID_GET_INDEX_STATUS:
          serviceImpl.getIndexStatus((dev.quire.v1.GetIndexStatusRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.GetIndexStatusResponse>) responseObserver);
          break;
        case METHODID_WATCH_INDEX_STATUS:
          serviceImpl.watchIndexStatus((dev.quire.v1.WatchIndexStatusRequest) request,
              (io.grpc.stub.StreamObserver<dev.quire.v1.WatchIndexStatusResponse>) responseObserver);
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
        case METHODID_UPLOAD_DOCUMENT:
          return (io.grpc.stub.StreamObserver<Req>) serviceImpl.uploadDocument(
              (io.grpc.stub.StreamObserver<dev.quire.v1.UploadDocumentResponse>) responseObserver);
        case METHODID_UPLOAD_DOCUMENTS:
          return (io.grpc.stub.StreamObserver<Req>) serviceImpl.uploadDocuments(
              (io.grpc.stub.StreamObserver<dev.quire.v1.UploadDocumentsResponse>) responseObserver);
        default:
          throw new AssertionError();
      }
    }
  }

  public static final io.grpc.ServerServiceDefinition bindService(AsyncService service) {
    return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
        .addMethod(
          getCreateCollectionMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.CreateCollectionRequest,
              dev.quire.v1.CreateCollectionResponse>(
                service, METHODID_CREATE_COLLECTION)))
        .addMethod(
          getListModelsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.ListModelsRequest,
              dev.quire.v1.ListModelsResponse>(
                service, METHODID_LIST_MODELS)))
        .addMethod(
          getGetCollectionMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.GetCollectionRequest,
              dev.quire.v1.GetCollectionResponse>(
                service, METHODID_GET_COLLECTION)))
        .addMethod(
          getListCollectionsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.ListCollectionsRequest,
              dev.quire.v1.ListCollectionsResponse>(
                service, METHODID_LIST_COLLECTIONS)))
        .addMethod(
          getDeleteCollectionMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.DeleteCollectionRequest,
              dev.quire.v1.DeleteCollectionResponse>(
                service, METHODID_DELETE_COLLECTION)))
        .addMethod(
          getUploadDocumentMethod(),
          io.grpc.stub.ServerCalls.asyncClientStreamingCall(
            new MethodHandlers<
              dev.quire.v1.UploadDocumentRequest,
              dev.quire.v1.UploadDocumentResponse>(
                service, METHODID_UPLOAD_DOCUMENT)))
        .addMethod(
          getUploadDocumentsMethod(),
          io.grpc.stub.ServerCalls.asyncClientStreamingCall(
            new MethodHandlers<
              dev.quire.v1.UploadDocumentsRequest,
              dev.quire.v1.UploadDocumentsResponse>(
                service, METHODID_UPLOAD_DOCUMENTS)))
        .addMethod(
          getGetDocumentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.GetDocumentRequest,
              dev.quire.v1.GetDocumentResponse>(
                service, METHODID_GET_DOCUMENT)))
        .addMethod(
          getListDocumentsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.ListDocumentsRequest,
              dev.quire.v1.ListDocumentsResponse>(
                service, METHODID_LIST_DOCUMENTS)))
        .addMethod(
          getDeleteDocumentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.DeleteDocumentRequest,
              dev.quire.v1.DeleteDocumentResponse>(
                service, METHODID_DELETE_DOCUMENT)))
        .addMethod(
          getDeleteDocumentsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.DeleteDocumentsRequest,
              dev.quire.v1.DeleteDocumentsResponse>(
                service, METHODID_DELETE_DOCUMENTS)))
        .addMethod(
          getUpdateDocumentMetadataMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.UpdateDocumentMetadataRequest,
              dev.quire.v1.UpdateDocumentMetadataResponse>(
                service, METHODID_UPDATE_DOCUMENT_METADATA)))
        .addMethod(
          getWatchDocumentsMethod(),
          io.grpc.stub.ServerCalls.asyncServerStreamingCall(
            new MethodHandlers<
              dev.quire.v1.WatchDocumentsRequest,
              dev.quire.v1.WatchDocumentsResponse>(
                service, METHODID_WATCH_DOCUMENTS)))
        .addMethod(
          getUpsertAgentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.UpsertAgentRequest,
              dev.quire.v1.UpsertAgentResponse>(
                service, METHODID_UPSERT_AGENT)))
        .addMethod(
          getGetAgentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.GetAgentRequest,
              dev.quire.v1.GetAgentResponse>(
                service, METHODID_GET_AGENT)))
        .addMethod(
          getDeleteAgentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.DeleteAgentRequest,
              dev.quire.v1.DeleteAgentResponse>(
                service, METHODID_DELETE_AGENT)))
        .addMethod(
          getListAgentsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.ListAgentsRequest,
              dev.quire.v1.ListAgentsResponse>(
                service, METHODID_LIST_AGENTS)))
        .addMethod(
          getSearchKnowledgeMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.SearchKnowledgeRequest,
              dev.quire.v1.SearchKnowledgeResponse>(
                service, METHODID_SEARCH_KNOWLEDGE)))
        .addMethod(
          getReadDocumentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.ReadDocumentRequest,
              dev.quire.v1.ReadDocumentResponse>(
                service, METHODID_READ_DOCUMENT)))
        .addMethod(
          getGetIndexStatusMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.quire.v1.GetIndexStatusRequest,
              dev.quire.v1.GetIndexStatusResponse>(
                service, METHODID_GET_INDEX_STATUS)))
        .addMethod(
          getWatchIndexStatusMethod(),
          io.grpc.stub.ServerCalls.asyncServerStreamingCall(
            new MethodHandlers<
              dev.quire.v1.WatchIndexStatusRequest,
              dev.quire.v1.WatchIndexStatusResponse>(
                service, METHODID_WATCH_INDEX_STATUS)))
        .build();
  }

  private static abstract class KnowledgeServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    KnowledgeServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.quire.v1.KnowledgeServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("KnowledgeService");
    }
  }

  private static final class KnowledgeServiceFileDescriptorSupplier
      extends KnowledgeServiceBaseDescriptorSupplier {
    KnowledgeServiceFileDescriptorSupplier() {}
  }

  private static final class KnowledgeServiceMethodDescriptorSupplier
      extends KnowledgeServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    KnowledgeServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (KnowledgeServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new KnowledgeServiceFileDescriptorSupplier())
              .addMethod(getCreateCollectionMethod())
              .addMethod(getListModelsMethod())
              .addMethod(getGetCollectionMethod())
              .addMethod(getListCollectionsMethod())
              .addMethod(getDeleteCollectionMethod())
              .addMethod(getUploadDocumentMethod())
              .addMethod(getUploadDocumentsMethod())
              .addMethod(getGetDocumentMethod())
              .addMethod(getListDocumentsMethod())
              .addMethod(getDeleteDocumentMethod())
              .addMethod(getDeleteDocumentsMethod())
              .addMethod(getUpdateDocumentMetadataMethod())
              .addMethod(getWatchDocumentsMethod())
              .addMethod(getUpsertAgentMethod())
              .addMethod(getGetAgentMethod())
              .addMethod(getDeleteAgentMethod())
              .addMethod(getListAgentsMethod())
              .addMethod(getSearchKnowledgeMethod())
              .addMethod(getReadDocumentMethod())
              .addMethod(getGetIndexStatusMethod())
              .addMethod(getWatchIndexStatusMethod())
              .build();
        }
      }
    }
    return result;
  }
}
