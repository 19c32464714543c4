package quire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sort"

	"github.com/quire/quire/clients/go/quirev1"
)

// MaxBatchDocuments is the most documents one UploadDocuments call carries (the server's bound).
const MaxBatchDocuments = 1000

// DefaultBatchBytes is the server's default QUIRE_MAX_UPLOAD_BYTES (64 MiB), the bound of the
// bytes of one UploadDocuments call; WithBatchBytes sets another.
const DefaultBatchBytes = 64 * 1024 * 1024

// UploadItem is one document of UploadDocuments.
type UploadItem struct {
	// FileName is the file's name (1–255 characters, no "/" or "\"); its extension picks the type.
	FileName string
	// Data is the file's content.
	Data []byte
	// ExternalKey is the caller's key for the document ("" = none); a key the collection
	// already holds names that document (replaced, or UNCHANGED when nothing differs).
	ExternalKey string
	// Metadata is the document's metadata (nil = unset: a new document gets {}, a replaced one
	// keeps its own). See NewMetadata for the accepted values.
	Metadata map[string]any
	// MimeType is used when the file name has no known extension ("" = from the name).
	MimeType string
}

type batchSettings struct {
	maxBytes int64
}

// BatchOption configures UploadDocuments and UploadFolder.
type BatchOption func(*batchSettings)

// WithBatchBytes sets the most bytes one UploadDocuments call carries: the server's
// QUIRE_MAX_UPLOAD_BYTES when it is not the default 64 MiB.
func WithBatchBytes(n int64) BatchOption {
	return func(s *batchSettings) {
		if n > 0 {
			s.maxBytes = n
		}
	}
}

func newBatchSettings(opts []BatchOption) batchSettings {
	s := batchSettings{maxBytes: DefaultBatchBytes}
	for _, opt := range opts {
		opt(&s)
	}
	return s
}

// UploadDocuments uploads items into a collection over UploadDocuments, in as few calls as
// the bounds allow (at most MaxBatchDocuments documents and the batch byte bound per call),
// one call after another. The response has one UploadResult per item, in input order, Index
// being the item's position in items. A document the server refuses (unsupported type, bad
// key or metadata...) gets its Error and the others are stored; each call stores its
// documents in one transaction. An item larger than the byte bound on its own gets its
// PAYLOAD_TOO_LARGE as its result. A call that fails as a whole (a bad API key, a lost
// connection...) ends the upload: the error is returned with the results of the calls made
// before it, whose documents are stored. Never retried.
func (c *Client) UploadDocuments(ctx context.Context, collectionID string, items []UploadItem, opts ...BatchOption) (*quirev1.UploadDocumentsResponse, error) {
	settings := newBatchSettings(opts)
	out := &quirev1.UploadDocumentsResponse{SchemaVersion: 1, Results: make([]*quirev1.UploadResult, 0, len(items))}
	// Results come back batch by batch, refusals found here at once: sorted by Index at the end.
	defer func() {
		sort.Slice(out.Results, func(i, j int) bool { return out.Results[i].GetIndex() < out.Results[j].GetIndex() })
	}()
	var batch []preparedUpload
	var batchBytes int64
	for i, item := range items {
		meta, refusal := uploadMetadata(collectionID, item)
		if refusal != nil {
			out.Results = append(out.Results, &quirev1.UploadResult{Index: uint32(i), Error: refusal})
			continue
		}
		size := int64(len(item.Data))
		if len(batch) > 0 && (len(batch) >= MaxBatchDocuments || batchBytes+size > settings.maxBytes) {
			results, err := c.uploadBatch(ctx, batch)
			out.Results = append(out.Results, results...)
			if err != nil {
				return out, err
			}
			batch, batchBytes = nil, 0
		}
		batch = append(batch, preparedUpload{index: uint32(i), meta: meta, data: item.Data})
		batchBytes += size
	}
	results, err := c.uploadBatch(ctx, batch)
	out.Results = append(out.Results, results...)
	return out, err
}

// preparedUpload is an item ready to send: its input position, its metadata message, its bytes.
type preparedUpload struct {
	index uint32
	meta  *quirev1.UploadMetadata
	data  []byte
}

// uploadMetadata builds an item's metadata message, or the refusal of metadata that cannot
// be a JSON object (the server's per-document error shape).
func uploadMetadata(collectionID string, item UploadItem) (*quirev1.UploadMetadata, *quirev1.ErrorDetail) {
	meta := &quirev1.UploadMetadata{CollectionId: collectionID, FileName: item.FileName, MimeType: item.MimeType}
	if item.ExternalKey != "" {
		meta.ExternalKey = Key(item.ExternalKey)
	}
	if item.Metadata != nil {
		s, err := NewMetadata(item.Metadata)
		if err != nil {
			return nil, FromError(err).Detail
		}
		meta.Metadata = s
	}
	return meta, nil
}

// uploadBatch makes one UploadDocuments call for batch and returns its results with Index
// set to the input positions. A lone document refused with PAYLOAD_TOO_LARGE for the whole
// call gets that error as its result.
func (c *Client) uploadBatch(ctx context.Context, batch []preparedUpload) ([]*quirev1.UploadResult, error) {
	if len(batch) == 0 {
		return nil, nil
	}
	resp, err := c.uploadDocumentsCall(ctx, batch)
	if err != nil {
		if qe := FromError(err); qe != nil && len(batch) == 1 && qe.Code == quirev1.ErrorCode_ERROR_CODE_PAYLOAD_TOO_LARGE {
			return []*quirev1.UploadResult{{Index: batch[0].index, Error: qe.Detail}}, nil
		}
		return nil, err
	}
	results := resp.GetResults()
	for _, r := range results {
		if int(r.GetIndex()) < len(batch) {
			r.Index = batch[r.GetIndex()].index
		}
	}
	return results, nil
}

// uploadDocumentsCall streams the batch: each document's metadata message, then its bytes in
// ChunkSize messages.
func (c *Client) uploadDocumentsCall(ctx context.Context, batch []preparedUpload) (*quirev1.UploadDocumentsResponse, error) {
	ctx, cancel := c.withDeadline(ctx, "UploadDocuments")
	defer cancel()
	stream, err := c.knowledge.UploadDocuments(ctx)
	if err != nil {
		return nil, convert(err)
	}
	// The batch messages have the single upload's shape; sendUpload's pieces are re-wrapped.
	send := func(m *quirev1.UploadDocumentRequest) error {
		if meta := m.GetMetadata(); meta != nil {
			return stream.Send(&quirev1.UploadDocumentsRequest{Message: &quirev1.UploadDocumentsRequest_Metadata{Metadata: meta}})
		}
		return stream.Send(&quirev1.UploadDocumentsRequest{Message: &quirev1.UploadDocumentsRequest_Data{Data: m.GetData()}})
	}
	for _, item := range batch {
		if err := sendUpload(item.meta, bytes.NewReader(item.data), ChunkSize, send); err != nil {
			if errors.Is(err, io.EOF) {
				break // the server ended the call; CloseAndRecv has its status
			}
			return nil, convert(err)
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return nil, convert(err)
	}
	return resp, nil
}
