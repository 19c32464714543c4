package quire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/quire/quire/clients/go/quirev1"
)

// richStatus builds a status the way the server does: ErrorDetail + ErrorInfo in details.
func richStatus(t *testing.T, c codes.Code, detail *quirev1.ErrorDetail) error {
	t.Helper()
	st, err := status.New(c, detail.GetMessage()).WithDetails(
		detail,
		&errdetails.ErrorInfo{Reason: CodeName(detail.GetCode()), Domain: "quire.v1"},
	)
	if err != nil {
		t.Fatal(err)
	}
	return st.Err()
}

func TestErrorDecodedFromStatusDetails(t *testing.T) {
	err := richStatus(t, codes.FailedPrecondition, &quirev1.ErrorDetail{
		Code:            quirev1.ErrorCode_ERROR_CODE_PAGE_CHANGED,
		Message:         "the page changed",
		CurrentRevision: "rev-2",
	})
	qe := FromError(fmt.Errorf("wrapped: %w", err))
	if qe == nil {
		t.Fatal("FromError returned nil")
	}
	if qe.Code != quirev1.ErrorCode_ERROR_CODE_PAGE_CHANGED || qe.GRPCCode != codes.FailedPrecondition {
		t.Fatalf("got %v / %v", qe.Code, qe.GRPCCode)
	}
	if qe.CurrentRevision() != "rev-2" || qe.Message != "the page changed" || qe.CodeName() != "PAGE_CHANGED" {
		t.Fatalf("got %q %q %q", qe.CurrentRevision(), qe.Message, qe.CodeName())
	}
	if _, ok := qe.RetryAfter(); ok {
		t.Fatal("RetryAfter set without retry_after")
	}
	if !errors.Is(qe, ErrPageChanged) || errors.Is(qe, ErrPageNotFound) {
		t.Fatal("sentinel matching by code failed")
	}
	wrapped := fmt.Errorf("reading: %w", qe)
	if !errors.Is(wrapped, ErrPageChanged) || !IsCode(wrapped, quirev1.ErrorCode_ERROR_CODE_PAGE_CHANGED) {
		t.Fatal("wrapped error does not match")
	}
	var as *Error
	if !errors.As(wrapped, &as) || as != qe {
		t.Fatal("errors.As failed")
	}
	if status.Code(qe) != codes.FailedPrecondition {
		t.Fatalf("status.Code = %v", status.Code(qe))
	}
	if qe.Error() != "quire: PAGE_CHANGED: the page changed" {
		t.Fatalf("Error() = %q", qe.Error())
	}
}

func TestErrorFieldViolationsAndRetryAfter(t *testing.T) {
	err := richStatus(t, codes.InvalidArgument, &quirev1.ErrorDetail{
		Code:    quirev1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
		Message: "bad config",
		FieldViolations: []*quirev1.FieldViolation{
			{Field: "config.max_parallel_workers_per_gather", Description: "0-1024"},
		},
	})
	qe := FromError(err)
	if len(qe.FieldViolations()) != 1 || qe.FieldViolations()[0].GetField() != "config.max_parallel_workers_per_gather" {
		t.Fatalf("field violations: %v", qe.FieldViolations())
	}
	if !errors.Is(err, ErrInvalidRequest) == true && !errors.Is(qe, ErrInvalidRequest) {
		t.Fatal("not ErrInvalidRequest")
	}

	busy := FromError(richStatus(t, codes.Unavailable, &quirev1.ErrorDetail{
		Code: quirev1.ErrorCode_ERROR_CODE_PAGE_SOURCE_BUSY, RetryAfter: durationpb.New(1500 * time.Millisecond),
	}))
	if d, ok := busy.RetryAfter(); !ok || d != 1500*time.Millisecond {
		t.Fatalf("RetryAfter = %v %v", d, ok)
	}
	if !errors.Is(busy, ErrPageSourceBusy) || !IsRetryable(busy) {
		t.Fatal("busy classification")
	}
}

func TestErrorWithoutDetailMapsFromGRPCCode(t *testing.T) {
	cases := map[codes.Code]quirev1.ErrorCode{
		codes.Unavailable:        quirev1.ErrorCode_ERROR_CODE_UNAVAILABLE,
		codes.ResourceExhausted:  quirev1.ErrorCode_ERROR_CODE_RESOURCE_EXHAUSTED,
		codes.Unauthenticated:    quirev1.ErrorCode_ERROR_CODE_UNAUTHENTICATED,
		codes.DeadlineExceeded:   quirev1.ErrorCode_ERROR_CODE_DEADLINE_EXCEEDED,
		codes.Unimplemented:      quirev1.ErrorCode_ERROR_CODE_UNIMPLEMENTED,
		codes.FailedPrecondition: quirev1.ErrorCode_ERROR_CODE_INTERNAL,
		codes.Unknown:            quirev1.ErrorCode_ERROR_CODE_INTERNAL,
	}
	for grpcCode, want := range cases {
		qe := FromError(status.Error(grpcCode, ""))
		if qe.Code != want || qe.GRPCCode != grpcCode {
			t.Errorf("%v: got %v", grpcCode, qe.Code)
		}
		if qe.Detail.GetCode() != want || qe.Message != CanonicalCodeName(grpcCode) {
			t.Errorf("%v: detail %v message %q", grpcCode, qe.Detail, qe.Message)
		}
	}
	if qe := FromError(context.DeadlineExceeded); qe == nil || qe.Code != quirev1.ErrorCode_ERROR_CODE_DEADLINE_EXCEEDED {
		t.Fatalf("context.DeadlineExceeded: %v", qe)
	}
	if FromError(errors.New("plain")) != nil || FromError(nil) != nil {
		t.Fatal("plain errors are not Quire errors")
	}
	if CodeOf(errors.New("plain")) != quirev1.ErrorCode_ERROR_CODE_INTERNAL || CodeOf(nil) != quirev1.ErrorCode_ERROR_CODE_UNSPECIFIED {
		t.Fatal("CodeOf")
	}
}

func TestToToolError(t *testing.T) {
	changed := richStatus(t, codes.FailedPrecondition, &quirev1.ErrorDetail{
		Code: quirev1.ErrorCode_ERROR_CODE_PAGE_CHANGED, CurrentRevision: "3f2a<&>",
	})
	if got := ToToolError(changed); got != `{"schema_version":1,"error":"page_changed","current_revision":"3f2a<&>"}` {
		t.Fatalf("page_changed: %s", got)
	}
	notFound := richStatus(t, codes.NotFound, &quirev1.ErrorDetail{Code: quirev1.ErrorCode_ERROR_CODE_DOCUMENT_NOT_FOUND})
	if got := ToToolError(FromError(notFound)); got != `{"schema_version":1,"error":"document_not_found"}` {
		t.Fatalf("document_not_found: %s", got)
	}
	tooMany := richStatus(t, codes.InvalidArgument, &quirev1.ErrorDetail{
		Code:            quirev1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
		FieldViolations: []*quirev1.FieldViolation{{Field: "limit", Description: "must be 1–8", Bound: "1–8"}},
	})
	if got := ToToolError(tooMany); got != `{"schema_version":1,"error":"invalid_request","field":"limit","bound":"1–8"}` {
		t.Fatalf("field and bound: %s", got)
	}
	if got := ToToolError(errors.New("boom")); got != `{"schema_version":1,"error":"internal"}` {
		t.Fatalf("plain: %s", got)
	}
	// Without an ErrorDetail the status message stands in for the detail's.
	if got := ToToolError(status.Error(codes.Unavailable, "down")); got != `{"schema_version":1,"error":"unavailable","message":"down"}` {
		t.Fatalf("no detail: %s", got)
	}
	// The same bytes as the Python and TypeScript clients' tests expect.
	withMessage := richStatus(t, codes.InvalidArgument, &quirev1.ErrorDetail{
		Code:            quirev1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
		Message:         "limit: at most 8",
		FieldViolations: []*quirev1.FieldViolation{{Field: "limit", Bound: "1–8"}},
	})
	if got := ToToolError(withMessage); got != `{"schema_version":1,"error":"invalid_request","message":"limit: at most 8","field":"limit","bound":"1–8"}` {
		t.Fatalf("message: %s", got)
	}
	internal := richStatus(t, codes.Internal, &quirev1.ErrorDetail{Code: quirev1.ErrorCode_ERROR_CODE_INTERNAL, Message: "oops"})
	if got := ToToolError(internal); got != `{"schema_version":1,"error":"internal"}` {
		t.Fatalf("internal: %s", got)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(ToToolError(changed)), &body); err != nil || body["schema_version"] != 1.0 {
		t.Fatalf("not JSON: %v %v", err, body)
	}
}

func TestSentinelsCoverTheEnum(t *testing.T) {
	for value, name := range quirev1.ErrorCode_name {
		code := quirev1.ErrorCode(value)
		if code == quirev1.ErrorCode_ERROR_CODE_UNSPECIFIED {
			continue
		}
		sentinel, ok := generatedSentinels[code]
		if !ok {
			t.Errorf("%s has no generated sentinel: run clients/go/generate.sh", name)
			continue
		}
		err := &Error{Code: code}
		if !errors.Is(err, sentinel) || !errors.Is(err, CodeError(code)) {
			t.Errorf("%s does not match its sentinel", name)
		}
		for other, otherSentinel := range generatedSentinels {
			if other != code && errors.Is(err, otherSentinel) {
				t.Errorf("%s matches the sentinel of %v", name, other)
			}
		}
	}
	if len(generatedSentinels) != len(quirev1.ErrorCode_name)-1 {
		t.Errorf("%d sentinels for %d codes", len(generatedSentinels), len(quirev1.ErrorCode_name)-1)
	}
	if ErrPageChanged.Error() != "quire: PAGE_CHANGED" {
		t.Errorf("sentinel text %q", ErrPageChanged.Error())
	}
}
