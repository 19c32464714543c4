/**
 * Errors raised by the client: one class per `quire.v1.ErrorCode`, all extending `QuireError`.
 *
 * The classes are built at load time FROM the generated enum (`ErrorCodeSchema`), which is the
 * single source of truth: a new ErrorCode gets its class without editing this file. Names are
 * the code in PascalCase: `ERROR_CODE_PAGE_CHANGED` → `PageChanged` (`errors.PageChanged`).
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { Duration } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";

import { CODE_BY_GRPC_STATUS, GRPC_STATUS_BY_CODE } from "./contract.gen.js";
import {
  ErrorCode,
  ErrorCodeSchema,
  type ErrorDetail,
  ErrorDetailSchema,
  type FieldViolation,
} from "./gen/quire/v1/errors_pb.js";

// The status of every ErrorCode and the code assumed for a status without an ErrorDetail are
// generated from the contract's `(quire.v1.error)` options (docs/errors.md).
export { CODE_BY_GRPC_STATUS, GRPC_STATUS_BY_CODE };

const PREFIX = "ERROR_CODE_";

/** `ErrorCode.PAGE_CHANGED` → `"PAGE_CHANGED"` (the google.rpc.ErrorInfo reason). */
export function codeName(code: ErrorCode): string {
  const value = ErrorCodeSchema.value[code];
  return value ? value.name.slice(PREFIX.length) : String(code);
}

/** `"NOT_FOUND"` for `Code.NotFound`: the canonical gRPC status name. */
export function grpcStatusName(code: Code): string {
  const name = Code[code];
  return name === undefined
    ? String(code)
    : name === "Canceled"
      ? "CANCELLED"
      : name.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

/** The tool_error JSON object of the design (§2). */
export interface ToolError {
  schema_version: 1;
  /** The ErrorCode in lower case without its prefix, e.g. `"page_changed"`. */
  error: string;
  /**
   * The ErrorDetail's sentence for people and models, when it has one; never present for
   * `internal` (its text may come from a runtime or from code that is not Quire's).
   */
  message?: string;
  /** Only present when set (PAGE_CHANGED). */
  current_revision?: string;
  /** The argument at fault (the first field violation), when one was. */
  field?: string;
  /** The bound that argument broke, e.g. `"1–8"`, when one applies. */
  bound?: string;
}

/**
 * Keys are set in one fixed order (schema_version, error, message, current_revision, field,
 * bound) so `JSON.stringify` writes the same bytes as the Python and Go clients.
 */
export function toolErrorObject(
  code: ErrorCode,
  currentRevision = "",
  field = "",
  bound = "",
  message = "",
): ToolError {
  const body: ToolError = { schema_version: 1, error: codeName(code).toLowerCase() };
  if (message && code !== ErrorCode.INTERNAL) body.message = message;
  if (currentRevision) body.current_revision = currentRevision;
  if (field) body.field = field;
  if (bound) body.bound = bound;
  return body;
}

export interface QuireErrorOptions {
  detail?: ErrorDetail | undefined;
  grpcCode?: Code | undefined;
  cause?: unknown;
}

/** A failed call. `code` is the `quire.v1.ErrorCode`; `detail` the full ErrorDetail. */
export class QuireError extends Error {
  /** The ErrorCode of this class (UNSPECIFIED for the base class). */
  static readonly code: ErrorCode = ErrorCode.UNSPECIFIED;

  readonly code: ErrorCode;
  /** The gRPC status code of the failed call (`Code.Unknown` when not from a call). */
  readonly grpcCode: Code;
  readonly detail: ErrorDetail;

  constructor(message: string, options: QuireErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const own = (new.target as typeof QuireError).code;
    this.name = new.target.name;
    this.code = own !== ErrorCode.UNSPECIFIED ? own : (options.detail?.code ?? ErrorCode.UNSPECIFIED);
    this.grpcCode = options.grpcCode ?? (this.code ? GRPC_STATUS_BY_CODE[this.code as Exclude<ErrorCode, 0>] : Code.Unknown);
    this.detail = options.detail ?? create(ErrorDetailSchema, { code: this.code, message });
  }

  /** `"PAGE_CHANGED"`. */
  get codeName(): string {
    return codeName(this.code);
  }

  /** For PAGE_CHANGED: the page's current revision; `""` otherwise. */
  get currentRevision(): string {
    return this.detail.currentRevision;
  }

  get fieldViolations(): FieldViolation[] {
    return this.detail.fieldViolations;
  }

  /** The server's ErrorDetail.retry_after, when set. */
  get retryAfter(): Duration | undefined {
    return this.detail.retryAfter;
  }

  /** `retryAfter` in milliseconds, when set. */
  get retryAfterMs(): number | undefined {
    const d = this.detail.retryAfter;
    return d === undefined ? undefined : Number(d.seconds) * 1000 + d.nanos / 1e6;
  }

  toToolError(): ToolError {
    const first = this.detail.fieldViolations[0];
    return toolErrorObject(this.code, this.currentRevision, first?.field, first?.bound, this.detail.message);
  }
}

export type QuireErrorClass = (new (message: string, options?: QuireErrorOptions) => QuireError) & {
  readonly code: ErrorCode;
};

/** `"PAGE_CHANGED"` → `"PageChanged"` at the type level. */
type Pascal<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Capitalize<Lowercase<Head>>}${Pascal<Tail>}`
  : Capitalize<Lowercase<S>>;

/** Every class name, derived from the generated enum's member names. */
export type ErrorClassName = Pascal<Exclude<keyof typeof ErrorCode, "UNSPECIFIED">>;

function pascal(name: string): string {
  return name
    .toLowerCase()
    .split("_")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

function buildClasses(): {
  byCode: Map<ErrorCode, QuireErrorClass>;
  byName: Record<ErrorClassName, QuireErrorClass>;
} {
  const byCode = new Map<ErrorCode, QuireErrorClass>();
  const byName: Record<string, QuireErrorClass> = {};
  for (const value of ErrorCodeSchema.values) {
    if (value.number === ErrorCode.UNSPECIFIED) continue;
    const className = pascal(value.name.slice(PREFIX.length));
    const cls = class extends QuireError {
      static override readonly code: ErrorCode = value.number;
    };
    Object.defineProperty(cls, "name", { value: className });
    byCode.set(value.number, cls);
    byName[className] = cls;
  }
  return { byCode, byName: byName as Record<ErrorClassName, QuireErrorClass> };
}

const built = buildClasses();

/** ErrorCode → its class (every value but UNSPECIFIED). */
export const ERROR_CLASSES: ReadonlyMap<ErrorCode, QuireErrorClass> = built.byCode;

/** Every error class by name: `catch (e) { if (e instanceof errors.PageChanged) ... }`. */
export const errors: Readonly<Record<ErrorClassName, QuireErrorClass>> = Object.freeze(built.byName);

/** The class of an ErrorCode (QuireError itself for UNSPECIFIED or unknown values). */
export function errorClass(code: ErrorCode): QuireErrorClass {
  return ERROR_CLASSES.get(code) ?? QuireError;
}

/** True when `err` is a QuireError (of `code`, when given). */
export function isQuireError(err: unknown): err is QuireError;
export function isQuireError(err: unknown, code: ErrorCode): boolean;
export function isQuireError(err: unknown, code?: ErrorCode): boolean {
  return err instanceof QuireError && (code === undefined || err.code === code);
}

/** The ErrorDetail carried in `grpc-status-details-bin`, if the server sent one. */
export function errorDetailOf(err: ConnectError): ErrorDetail | undefined {
  return err.findDetails(ErrorDetailSchema)[0];
}

/** Turns a failed call into the matching QuireError subclass. */
export function fromConnectError(err: ConnectError): QuireError {
  const detail = errorDetailOf(err);
  const code =
    detail !== undefined && detail.code !== ErrorCode.UNSPECIFIED
      ? detail.code
      : (CODE_BY_GRPC_STATUS.get(err.code) ?? ErrorCode.INTERNAL);
  const cls = errorClass(code);
  const message = err.rawMessage || grpcStatusName(err.code);
  const error = new cls(message, {
    detail: detail ?? create(ErrorDetailSchema, { code, message }),
    grpcCode: err.code,
    cause: err,
  });
  return error;
}

/** Any thrown value as a QuireError (unknown failures become `Internal`). */
export function toQuireError(err: unknown): QuireError {
  if (err instanceof QuireError) return err;
  if (err instanceof ConnectError) return fromConnectError(err);
  const connect = ConnectError.from(err);
  if (connect.code !== Code.Unknown) return fromConnectError(connect);
  const cls = errorClass(ErrorCode.INTERNAL);
  return new cls(err instanceof Error ? err.message : String(err), { grpcCode: Code.Unknown, cause: err });
}

/**
 * The design's tool_error JSON for any thrown value, e.g.
 * `{"schema_version":1,"error":"page_changed","message":"…","current_revision":"3f2a…"}`.
 * QuireErrors and ConnectErrors map to their code; anything else is `internal`.
 */
export function toToolError(err: unknown): string {
  return JSON.stringify(toToolErrorObject(err));
}

/** Like `toToolError`, as an object. */
export function toToolErrorObject(err: unknown): ToolError {
  if (err instanceof QuireError) return err.toToolError();
  if (err instanceof ConnectError) return fromConnectError(err).toToolError();
  return toolErrorObject(ErrorCode.INTERNAL);
}

/** Builds an ErrorDetail (handy in tests and fakes). */
export function errorDetail(init: MessageInitShape<typeof ErrorDetailSchema>): ErrorDetail {
  return create(ErrorDetailSchema, init);
}
