package quire

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/quire/quire/clients/go/quirev1"
)

// NewMetadata converts a JSON-like map (string, float64 or any Go number, bool, nil,
// []any, map[string]any) into the google.protobuf.Struct of UploadMetadata.Metadata and
// UpdateDocumentMetadataRequest.Patch. A value of another type fails with ErrInvalidRequest
// naming field "metadata"; the server checks the bounds (docs/knowledge.md, "Metadata").
// Numbers become doubles: integers beyond 2^53 lose precision.
func NewMetadata(m map[string]any) (*structpb.Struct, error) {
	s, err := structpb.NewStruct(m)
	if err != nil {
		return nil, invalidRequest("metadata", "a JSON object", "metadata is not a JSON object: "+err.Error())
	}
	return s, nil
}

// invalidRequest is the *Error of bad input found before any call, shaped like the server's
// INVALID_REQUEST (one field violation), so callers handle both the same way.
func invalidRequest(field, bound, message string) *Error {
	detail := &quirev1.ErrorDetail{
		Code:            quirev1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
		Message:         message,
		FieldViolations: []*quirev1.FieldViolation{{Field: field, Description: message, Bound: bound}},
	}
	return &Error{Code: detail.Code, GRPCCode: codes.InvalidArgument, Message: message, Detail: detail}
}
