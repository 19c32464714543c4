package quire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quire/quire/clients/go/quirev1"
)

// Error is every failure a Client method returns. Code comes from the quire.v1.ErrorDetail in
// the status details (grpc-status-details-bin), never from the message; a status without a
// detail (e.g. a refused connection) is mapped from its gRPC code.
//
//	var qe *quire.Error
//	if errors.As(err, &qe) && qe.Code == quirev1.ErrorCode_ERROR_CODE_PAGE_CHANGED { ... }
//	if errors.Is(err, quire.ErrPageChanged) { ... }
type Error struct {
	// Code is the Quire error code (never ERROR_CODE_UNSPECIFIED).
	Code quirev1.ErrorCode
	// GRPCCode is the canonical gRPC status code of the failed call.
	GRPCCode codes.Code
	// Message is human-readable; never parse it.
	Message string
	// Detail is the decoded ErrorDetail; when the server sent none it holds Code and Message.
	Detail *quirev1.ErrorDetail

	status *status.Status
}

// Error implements error: "quire: PAGE_CHANGED: <message>".
func (e *Error) Error() string {
	if e.Message == "" {
		return "quire: " + CodeName(e.Code)
	}
	return "quire: " + CodeName(e.Code) + ": " + e.Message
}

// Is makes errors.Is(err, quire.ErrPageChanged) (or any CodeError sentinel) match by code.
func (e *Error) Is(target error) bool {
	if s, ok := target.(*codeError); ok {
		return s.code == e.Code
	}
	return false
}

// GRPCStatus returns the original status, so status.FromError and status.Code keep working.
func (e *Error) GRPCStatus() *status.Status {
	if e.status != nil {
		return e.status
	}
	return status.New(e.GRPCCode, e.Message)
}

// CodeName is the code without its prefix, e.g. "PAGE_CHANGED" (the ErrorInfo reason).
func (e *Error) CodeName() string { return CodeName(e.Code) }

// CurrentRevision is the page's current revision for PAGE_CHANGED, else "".
func (e *Error) CurrentRevision() string { return e.Detail.GetCurrentRevision() }

// FieldViolations names each invalid request field (INVALID_REQUEST), e.g.
// {Field: "config.max_parallel_workers_per_gather", Description: "0-1024"}.
func (e *Error) FieldViolations() []*quirev1.FieldViolation { return e.Detail.GetFieldViolations() }

// RetryAfter is how long the server asks the caller to wait before retrying; ok is false when
// the server set no retry_after.
func (e *Error) RetryAfter() (d time.Duration, ok bool) {
	if e.Detail.GetRetryAfter() == nil {
		return 0, false
	}
	return e.Detail.GetRetryAfter().AsDuration(), true
}

// ToolError is the agent tool JSON of this error (see ToToolError).
// message is the ErrorDetail's; field and bound name the first field violation and the bound
// it broke, when there is one.
func (e *Error) ToolError() string {
	body := newToolError(e.Code, e.CurrentRevision())
	// An internal failure never says more than its code: its text may come from a runtime or
	// from code that is not Quire's.
	if e.Code != quirev1.ErrorCode_ERROR_CODE_INTERNAL {
		body.Message = e.Detail.GetMessage()
	}
	if violations := e.FieldViolations(); len(violations) > 0 {
		body.Field, body.Bound = violations[0].GetField(), violations[0].GetBound()
	}
	return body.json()
}

// codeError is the sentinel of one ErrorCode (see CodeError).
type codeError struct{ code quirev1.ErrorCode }

func (s *codeError) Error() string { return "quire: " + CodeName(s.code) }

var sentinels = func() map[quirev1.ErrorCode]*codeError {
	m := make(map[quirev1.ErrorCode]*codeError, len(quirev1.ErrorCode_name))
	for v := range quirev1.ErrorCode_name {
		m[quirev1.ErrorCode(v)] = &codeError{code: quirev1.ErrorCode(v)}
	}
	return m
}()

// CodeError returns the sentinel error of an ErrorCode, built from the generated enum, so
// errors.Is(err, quire.CodeError(code)) works for every code, including ones added to the
// contract after this package was written. ErrPageChanged etc. are CodeError values.
func CodeError(code quirev1.ErrorCode) error {
	if s, ok := sentinels[code]; ok {
		return s
	}
	return &codeError{code: code}
}

// IsCode reports whether err (or any error it wraps) is a Quire error with this code.
func IsCode(err error, code quirev1.ErrorCode) bool {
	var qe *Error
	return errors.As(err, &qe) && qe.Code == code
}

// CodeOf is the ErrorCode of err: ERROR_CODE_UNSPECIFIED for nil, the Quire code for a Quire
// error or gRPC status, ERROR_CODE_INTERNAL for anything else.
func CodeOf(err error) quirev1.ErrorCode {
	if err == nil {
		return quirev1.ErrorCode_ERROR_CODE_UNSPECIFIED
	}
	if qe := FromError(err); qe != nil {
		return qe.Code
	}
	return quirev1.ErrorCode_ERROR_CODE_INTERNAL
}

const codePrefix = "ERROR_CODE_"

// CodeName is "PAGE_CHANGED" for ERROR_CODE_PAGE_CHANGED (unknown values: their number).
func CodeName(code quirev1.ErrorCode) string {
	name, ok := quirev1.ErrorCode_name[int32(code)]
	if !ok {
		return fmt.Sprintf("%d", int32(code))
	}
	return strings.TrimPrefix(name, codePrefix)
}

// ErrorDetailOf returns the quire.v1.ErrorDetail carried in a status's details, or nil.
func ErrorDetailOf(st *status.Status) *quirev1.ErrorDetail {
	if st == nil {
		return nil
	}
	for _, item := range st.Proto().GetDetails() {
		detail := &quirev1.ErrorDetail{}
		if item.MessageIs(detail) && item.UnmarshalTo(detail) == nil {
			return detail
		}
	}
	return nil
}

// FromError converts err into a *Error: an *Error (possibly wrapped) is returned as is; a gRPC
// status error or a context error is decoded; anything else gives nil.
func FromError(err error) *Error {
	if err == nil {
		return nil
	}
	var qe *Error
	if errors.As(err, &qe) {
		return qe
	}
	var withStatus interface{ GRPCStatus() *status.Status }
	var st *status.Status
	if errors.As(err, &withStatus) {
		st = withStatus.GRPCStatus()
	}
	if st == nil {
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			return nil
		}
		st = status.FromContextError(err)
	}
	return fromStatus(st)
}

func fromStatus(st *status.Status) *Error {
	message := st.Message()
	if message == "" {
		message = canonicalName(st.Code())
	}
	detail := ErrorDetailOf(st)
	code := quirev1.ErrorCode_ERROR_CODE_UNSPECIFIED
	if detail != nil {
		code = detail.GetCode()
	}
	if code == quirev1.ErrorCode_ERROR_CODE_UNSPECIFIED {
		var ok bool
		if code, ok = codeByGRPC[st.Code()]; !ok {
			code = quirev1.ErrorCode_ERROR_CODE_INTERNAL
		}
	}
	if detail == nil {
		detail = &quirev1.ErrorDetail{Code: code, Message: message}
	}
	return &Error{Code: code, GRPCCode: st.Code(), Message: message, Detail: detail, status: st}
}

// convert turns an RPC error into *Error (nil stays nil).
func convert(err error) error {
	if err == nil {
		return nil
	}
	if qe := FromError(err); qe != nil {
		return qe
	}
	return err
}

// ToToolError is the JSON an agent tool returns instead of failing:
//
//	{"schema_version":1,"error":"page_changed","message":"…","current_revision":"3f2a…"}
//	{"schema_version":1,"error":"invalid_request","message":"…","field":"limit","bound":"1–8"}
//
// error is the code in lower case without its prefix; message (the ErrorDetail's, never for
// internal), current_revision, field and bound appear only when set.
// Any error that is neither a Quire error nor a gRPC status gives "internal".
func ToToolError(err error) string {
	if qe := FromError(err); qe != nil {
		return qe.ToolError()
	}
	return newToolError(quirev1.ErrorCode_ERROR_CODE_INTERNAL, "").json()
}

// ToolErrorSchemaVersion is the schema_version of tool_error JSON.
const ToolErrorSchemaVersion = 1

// toolError's field order is the JSON's key order, the same as the Python and TypeScript
// clients write.
type toolError struct {
	SchemaVersion   int    `json:"schema_version"`
	Error           string `json:"error"`
	Message         string `json:"message,omitempty"`
	CurrentRevision string `json:"current_revision,omitempty"`
	Field           string `json:"field,omitempty"`
	Bound           string `json:"bound,omitempty"`
}

func newToolError(code quirev1.ErrorCode, currentRevision string) toolError {
	return toolError{
		SchemaVersion:   ToolErrorSchemaVersion,
		Error:           strings.ToLower(CodeName(code)),
		CurrentRevision: currentRevision,
	}
}

func (t toolError) json() string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(t)
	return strings.TrimRight(b.String(), "\n")
}

// canonicalName is the upper-case canonical name of a gRPC code ("NOT_FOUND").
func canonicalName(c codes.Code) string {
	if name, ok := canonicalNames[c]; ok {
		return name
	}
	return fmt.Sprintf("CODE(%d)", uint32(c))
}

var canonicalNames = map[codes.Code]string{
	codes.OK:                 "OK",
	codes.Canceled:           "CANCELLED",
	codes.Unknown:            "UNKNOWN",
	codes.InvalidArgument:    "INVALID_ARGUMENT",
	codes.DeadlineExceeded:   "DEADLINE_EXCEEDED",
	codes.NotFound:           "NOT_FOUND",
	codes.AlreadyExists:      "ALREADY_EXISTS",
	codes.PermissionDenied:   "PERMISSION_DENIED",
	codes.ResourceExhausted:  "RESOURCE_EXHAUSTED",
	codes.FailedPrecondition: "FAILED_PRECONDITION",
	codes.Aborted:            "ABORTED",
	codes.OutOfRange:         "OUT_OF_RANGE",
	codes.Unimplemented:      "UNIMPLEMENTED",
	codes.Internal:           "INTERNAL",
	codes.Unavailable:        "UNAVAILABLE",
	codes.DataLoss:           "DATA_LOSS",
	codes.Unauthenticated:    "UNAUTHENTICATED",
}

// CanonicalCodeName is the canonical upper-case name of a gRPC status code, e.g. "NOT_FOUND"
// (as in docs/errors.md and the conformance scenarios).
func CanonicalCodeName(c codes.Code) string { return canonicalName(c) }
