import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { findTrailerError, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";

import {
  codeName,
  ERROR_CLASSES,
  ErrorCode,
  ErrorCodeSchema,
  ErrorDetailSchema,
  errors,
  fromConnectError,
  GRPC_STATUS_BY_CODE,
  grpcStatusName,
  isQuireError,
  QuireError,
  toQuireError,
  toToolError,
  toToolErrorObject,
} from "../../src/index.js";

function pageChanged(): ConnectError {
  return new ConnectError("Page changed since revision r1", Code.FailedPrecondition, undefined, [
    {
      desc: ErrorDetailSchema,
      value: {
        code: ErrorCode.PAGE_CHANGED,
        message: "Page changed since revision r1",
        currentRevision: "r2",
        fieldViolations: [{ field: "revision", description: "stale" }],
        retryAfter: { seconds: 2n, nanos: 500_000_000 },
      },
    },
  ]);
}

describe("error classes", () => {
  test("one class per ErrorCode value, derived from the generated enum", () => {
    const values = ErrorCodeSchema.values.filter((v) => v.number !== ErrorCode.UNSPECIFIED);
    assert.equal(ERROR_CLASSES.size, values.length);
    assert.equal(Object.keys(errors).length, values.length);
    for (const value of values) {
      const cls = ERROR_CLASSES.get(value.number);
      assert.ok(cls, value.name);
      assert.equal(cls.code, value.number);
      assert.ok(new cls("x") instanceof QuireError);
      assert.equal(new cls("x").code, value.number);
    }
    assert.equal(errors.PageChanged.name, "PageChanged");
    assert.equal(errors.PageChanged.code, ErrorCode.PAGE_CHANGED);
    assert.equal(errors.UnsupportedMediaType.code, ErrorCode.UNSUPPORTED_MEDIA_TYPE);
    assert.equal(errors.AlreadyExists.code, ErrorCode.ALREADY_EXISTS);
  });

  test("every ErrorCode has a canonical gRPC status (docs/errors.md)", () => {
    for (const value of ErrorCodeSchema.values) {
      if (value.number === ErrorCode.UNSPECIFIED) continue;
      assert.ok(value.number in GRPC_STATUS_BY_CODE, value.name);
    }
    assert.equal(GRPC_STATUS_BY_CODE[ErrorCode.PAGE_CHANGED], Code.FailedPrecondition);
    assert.equal(GRPC_STATUS_BY_CODE[ErrorCode.PAYLOAD_TOO_LARGE], Code.ResourceExhausted);
    assert.equal(codeName(ErrorCode.PAGE_CHANGED), "PAGE_CHANGED");
    assert.equal(grpcStatusName(Code.FailedPrecondition), "FAILED_PRECONDITION");
    assert.equal(grpcStatusName(Code.Canceled), "CANCELLED");
    assert.equal(grpcStatusName(Code.Unauthenticated), "UNAUTHENTICATED");
  });

  test("a constructed error without detail carries its code", () => {
    const err = new errors.CollectionNotFound("Collection not found");
    assert.equal(err.code, ErrorCode.COLLECTION_NOT_FOUND);
    assert.equal(err.grpcCode, Code.NotFound);
    assert.equal(err.detail.code, ErrorCode.COLLECTION_NOT_FOUND);
    assert.equal(err.name, "CollectionNotFound");
    assert.equal(err.currentRevision, "");
    assert.equal(err.retryAfter, undefined);
  });
});

describe("fromConnectError", () => {
  test("decodes ErrorDetail from the details", () => {
    const err = fromConnectError(pageChanged());
    assert.ok(err instanceof errors.PageChanged);
    assert.ok(err instanceof QuireError);
    assert.ok(err instanceof Error);
    assert.ok(isQuireError(err, ErrorCode.PAGE_CHANGED));
    assert.ok(!isQuireError(err, ErrorCode.NOT_FOUND));
    assert.equal(err.code, ErrorCode.PAGE_CHANGED);
    assert.equal(err.codeName, "PAGE_CHANGED");
    assert.equal(err.grpcCode, Code.FailedPrecondition);
    assert.equal(err.message, "Page changed since revision r1");
    assert.equal(err.currentRevision, "r2");
    assert.deepEqual(
      err.fieldViolations.map((v) => [v.field, v.description]),
      [["revision", "stale"]],
    );
    assert.equal(err.retryAfter?.seconds, 2n);
    assert.equal(err.retryAfterMs, 2500);
    assert.ok(err.cause instanceof ConnectError);
  });

  test("decodes the grpc-status-details-bin trailer (wire round trip)", () => {
    const trailer = setTrailerStatus(new Headers(), pageChanged());
    assert.ok(trailer.get("grpc-status-details-bin"));
    const wire = findTrailerError(trailer);
    assert.ok(wire);
    const err = fromConnectError(wire);
    assert.ok(err instanceof errors.PageChanged);
    assert.equal(err.currentRevision, "r2");
    assert.equal(err.detail.$typeName, "quire.v1.ErrorDetail");
  });

  test("without detail the status code picks the class", () => {
    const cases: [Code, string][] = [
      [Code.Unavailable, "Unavailable"],
      [Code.ResourceExhausted, "ResourceExhausted"],
      [Code.Unauthenticated, "Unauthenticated"],
      [Code.DeadlineExceeded, "DeadlineExceeded"],
      [Code.Unimplemented, "Unimplemented"],
      [Code.FailedPrecondition, "Internal"],
      [Code.Unknown, "Internal"],
    ];
    for (const [code, name] of cases) {
      const err = fromConnectError(new ConnectError("boom", code));
      assert.equal(err.name, name, Code[code]);
      assert.equal(err.grpcCode, code);
      assert.equal(err.detail.code, err.code);
    }
  });

  test("toQuireError keeps QuireErrors and wraps anything else as Internal", () => {
    const quire = new errors.NotFound("x");
    assert.equal(toQuireError(quire), quire);
    assert.ok(toQuireError(new Error("bug")) instanceof errors.Internal);
    assert.ok(toQuireError(pageChanged()) instanceof errors.PageChanged);
  });
});

describe("toToolError", () => {
  test("page_changed carries current_revision (and the violation's field)", () => {
    const expected =
      '{"schema_version":1,"error":"page_changed","message":"Page changed since revision r1","current_revision":"r2","field":"revision"}';
    assert.equal(toToolError(fromConnectError(pageChanged())), expected);
    assert.equal(toToolError(pageChanged()), expected);
  });

  test("current_revision only when set", () => {
    const detail = create(ErrorDetailSchema, { code: ErrorCode.DOCUMENT_NOT_FOUND, message: "Document not found" });
    const err = new errors.DocumentNotFound("Document not found", { detail });
    assert.equal(toToolError(err), '{"schema_version":1,"error":"document_not_found","message":"Document not found"}');
    assert.deepEqual(toToolErrorObject(err), {
      schema_version: 1,
      error: "document_not_found",
      message: "Document not found",
    });
  });

  test("field and bound of the first violation", () => {
    const detail = create(ErrorDetailSchema, {
      code: ErrorCode.INVALID_REQUEST,
      message: "limit: must be 1–8 (0 means 8)",
      fieldViolations: [{ field: "limit", description: "must be 1–8 (0 means 8)", bound: "1–8" }],
    });
    const err = new errors.InvalidRequest(detail.message, { detail });
    assert.equal(
      toToolError(err),
      '{"schema_version":1,"error":"invalid_request","message":"limit: must be 1–8 (0 means 8)","field":"limit","bound":"1–8"}',
    );
  });

  test("message in the same place as the Python and Go clients put it", () => {
    const detail = create(ErrorDetailSchema, {
      code: ErrorCode.INVALID_REQUEST,
      message: "limit: at most 8",
      fieldViolations: [{ field: "limit", bound: "1–8" }],
    });
    const err = fromConnectError(
      new ConnectError("x", Code.InvalidArgument, undefined, [{ desc: ErrorDetailSchema, value: detail }]),
    );
    assert.equal(
      toToolError(err),
      '{"schema_version":1,"error":"invalid_request","message":"limit: at most 8","field":"limit","bound":"1–8"}',
    );
  });

  test("internal never carries a message, even the server's", () => {
    const detail = create(ErrorDetailSchema, { code: ErrorCode.INTERNAL, message: "oops" });
    const err = fromConnectError(
      new ConnectError("oops", Code.Internal, undefined, [{ desc: ErrorDetailSchema, value: detail }]),
    );
    assert.equal(toToolError(err), '{"schema_version":1,"error":"internal"}');
  });

  test("unknown errors are internal", () => {
    assert.equal(toToolError(new Error("x")), '{"schema_version":1,"error":"internal"}');
    assert.equal(toToolError("a string"), '{"schema_version":1,"error":"internal"}');
    assert.equal(toToolError(undefined), '{"schema_version":1,"error":"internal"}');
  });
});
