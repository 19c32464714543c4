package quire

import (
	"context"
	"errors"
	"io"
	"iter"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/quire/quire/clients/go/quirev1"
)

// CreateCollection creates a collection (name 1–200 characters, unique among non-deleted
// collections; ErrAlreadyExists otherwise).
func (c *Client) CreateCollection(ctx context.Context, name string) (*quirev1.Collection, error) {
	req := &quirev1.CreateCollectionRequest{Name: name}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.CreateCollectionRequest) (*quirev1.CreateCollectionResponse, error) {
		return c.knowledge.CreateCollection(ctx, r)
	})
	return resp.GetCollection(), err
}

// GetCollection returns a collection (ErrCollectionNotFound when unknown or deleted).
func (c *Client) GetCollection(ctx context.Context, collectionID string) (*quirev1.Collection, error) {
	req := &quirev1.GetCollectionRequest{CollectionId: collectionID}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.GetCollectionRequest) (*quirev1.GetCollectionResponse, error) {
		return c.knowledge.GetCollection(ctx, r)
	})
	return resp.GetCollection(), err
}

// ListCollections returns the organisation's non-deleted collections by name.
func (c *Client) ListCollections(ctx context.Context) ([]*quirev1.Collection, error) {
	resp, err := unary(ctx, &quirev1.ListCollectionsRequest{}, func(ctx context.Context, r *quirev1.ListCollectionsRequest) (*quirev1.ListCollectionsResponse, error) {
		return c.knowledge.ListCollections(ctx, r)
	})
	return resp.GetCollections(), err
}

// DeleteCollection soft-deletes a collection and returns it.
func (c *Client) DeleteCollection(ctx context.Context, collectionID string) (*quirev1.Collection, error) {
	req := &quirev1.DeleteCollectionRequest{CollectionId: collectionID}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.DeleteCollectionRequest) (*quirev1.DeleteCollectionResponse, error) {
		return c.knowledge.DeleteCollection(ctx, r)
	})
	return resp.GetCollection(), err
}

// UploadDocument streams a file: meta first (collection, file name, optional MIME type; a
// DocumentId replaces that document's content), then the bytes of r in ChunkSize messages.
// Never retried. Default deadline: 10 min for the whole stream.
func (c *Client) UploadDocument(ctx context.Context, meta *quirev1.UploadMetadata, r io.Reader) (*quirev1.Document, error) {
	ctx, cancel := c.withDeadline(ctx, "UploadDocument")
	defer cancel()
	stream, err := c.knowledge.UploadDocument(ctx)
	if err != nil {
		return nil, convert(err)
	}
	send := func(m *quirev1.UploadDocumentRequest) error { return stream.Send(m) }
	if err := sendUpload(meta, r, ChunkSize, send); err != nil {
		if !errors.Is(err, io.EOF) {
			return nil, convert(err)
		}
		// io.EOF from Send: the server ended the call early; its status comes from CloseAndRecv.
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return nil, convert(err)
	}
	return resp.GetDocument(), nil
}

// ChunkSize is the size of every data message of an upload but the last (1 MiB).
const ChunkSize = 1024 * 1024

// sendUpload sends the metadata message, then r cut into messages of exactly size bytes (the
// last may be shorter). A read error is returned as is (wrapped), io.EOF from send too.
func sendUpload(meta *quirev1.UploadMetadata, r io.Reader, size int, send func(*quirev1.UploadDocumentRequest) error) error {
	first := proto.Clone(meta).(*quirev1.UploadMetadata)
	if err := send(&quirev1.UploadDocumentRequest{Message: &quirev1.UploadDocumentRequest_Metadata{Metadata: first}}); err != nil {
		return err
	}
	if r == nil {
		return nil
	}
	for {
		buf := make([]byte, size)
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if serr := send(&quirev1.UploadDocumentRequest{Message: &quirev1.UploadDocumentRequest_Data{Data: buf[:n]}}); serr != nil {
				return serr
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil
		}
		if err != nil {
			return &readError{err}
		}
	}
}

// readError marks a failure of the caller's reader (not of the RPC).
type readError struct{ err error }

func (e *readError) Error() string { return "quire: reading upload data: " + e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// GetDocument returns a document (ErrDocumentNotFound when unknown or deleted).
func (c *Client) GetDocument(ctx context.Context, documentID string) (*quirev1.Document, error) {
	req := &quirev1.GetDocumentRequest{DocumentId: documentID}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.GetDocumentRequest) (*quirev1.GetDocumentResponse, error) {
		return c.knowledge.GetDocument(ctx, r)
	})
	return resp.GetDocument(), err
}

// ListDocuments returns one page (Documents, NextCursor), newest first; see AllDocuments.
func (c *Client) ListDocuments(ctx context.Context, req *quirev1.ListDocumentsRequest) (*quirev1.ListDocumentsResponse, error) {
	return unary(ctx, req, func(ctx context.Context, r *quirev1.ListDocumentsRequest) (*quirev1.ListDocumentsResponse, error) {
		return c.knowledge.ListDocuments(ctx, r)
	})
}

// AllDocuments iterates every document of a collection, following NextCursor (pageSize 0 =
// the server default). Each page is its own call with its own default deadline.
func (c *Client) AllDocuments(ctx context.Context, collectionID string, pageSize uint32) iter.Seq2[*quirev1.Document, error] {
	return func(yield func(*quirev1.Document, error) bool) {
		cursor := ""
		for {
			page, err := c.ListDocuments(ctx, &quirev1.ListDocumentsRequest{CollectionId: collectionID, Cursor: cursor, Limit: pageSize})
			if err != nil {
				yield(nil, err)
				return
			}
			for _, d := range page.GetDocuments() {
				if !yield(d, nil) {
					return
				}
			}
			if page.GetNextCursor() == "" {
				return
			}
			cursor = page.GetNextCursor()
		}
	}
}

// DeleteDocument removes a document and returns it.
func (c *Client) DeleteDocument(ctx context.Context, documentID string) (*quirev1.Document, error) {
	req := &quirev1.DeleteDocumentRequest{DocumentId: documentID}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.DeleteDocumentRequest) (*quirev1.DeleteDocumentResponse, error) {
		return c.knowledge.DeleteDocument(ctx, r)
	})
	return resp.GetDocument(), err
}

// WatchDocuments yields a Document at each status change in the collection. It has no
// default deadline: it runs until ctx is cancelled or the loop breaks.
func (c *Client) WatchDocuments(ctx context.Context, collectionID string) iter.Seq2[*quirev1.Document, error] {
	req := &quirev1.WatchDocumentsRequest{CollectionId: collectionID}
	return serverStream(ctx, c, "WatchDocuments", req,
		func(ctx context.Context, r *quirev1.WatchDocumentsRequest) (grpc.ServerStreamingClient[quirev1.WatchDocumentsResponse], error) {
			return c.knowledge.WatchDocuments(ctx, r)
		},
		func(m *quirev1.WatchDocumentsResponse) *quirev1.Document { return m.GetDocument() })
}

// UpsertAgent creates or replaces an agent's attachments (config_version increments).
func (c *Client) UpsertAgent(ctx context.Context, req *quirev1.UpsertAgentRequest) (*quirev1.Agent, error) {
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.UpsertAgentRequest) (*quirev1.UpsertAgentResponse, error) {
		return c.knowledge.UpsertAgent(ctx, r)
	})
	return resp.GetAgent(), err
}

// GetAgent returns an agent (ErrAgentNotFound when unknown).
func (c *Client) GetAgent(ctx context.Context, agentID string) (*quirev1.Agent, error) {
	req := &quirev1.GetAgentRequest{AgentId: agentID}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.GetAgentRequest) (*quirev1.GetAgentResponse, error) {
		return c.knowledge.GetAgent(ctx, r)
	})
	return resp.GetAgent(), err
}

// SearchKnowledge searches an agent's current attachments (AgentId) or CollectionIds with the
// organisation's retrieval mode; the response has Hits, the serving Mode and Cached.
func (c *Client) SearchKnowledge(ctx context.Context, req *quirev1.SearchKnowledgeRequest) (*quirev1.SearchKnowledgeResponse, error) {
	return unary(ctx, req, func(ctx context.Context, r *quirev1.SearchKnowledgeRequest) (*quirev1.SearchKnowledgeResponse, error) {
		return c.knowledge.SearchKnowledge(ctx, r)
	})
}

// ReadDocument reads up to 4,000 code points of a document's current extracted text.
func (c *Client) ReadDocument(ctx context.Context, req *quirev1.ReadDocumentRequest) (*quirev1.DocumentSlice, error) {
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.ReadDocumentRequest) (*quirev1.ReadDocumentResponse, error) {
		return c.knowledge.ReadDocument(ctx, r)
	})
	return resp.GetSlice(), err
}

// GetIndexStatus returns the generations of a collection's index.
func (c *Client) GetIndexStatus(ctx context.Context, collectionID string) (*quirev1.IndexStatus, error) {
	req := &quirev1.GetIndexStatusRequest{CollectionId: collectionID}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.GetIndexStatusRequest) (*quirev1.GetIndexStatusResponse, error) {
		return c.knowledge.GetIndexStatus(ctx, r)
	})
	return resp.GetStatus(), err
}

// WatchIndexStatus yields IndexStatus on every generation change; no default deadline.
func (c *Client) WatchIndexStatus(ctx context.Context, collectionID string) iter.Seq2[*quirev1.IndexStatus, error] {
	req := &quirev1.WatchIndexStatusRequest{CollectionId: collectionID}
	return serverStream(ctx, c, "WatchIndexStatus", req,
		func(ctx context.Context, r *quirev1.WatchIndexStatusRequest) (grpc.ServerStreamingClient[quirev1.WatchIndexStatusResponse], error) {
			return c.knowledge.WatchIndexStatus(ctx, r)
		},
		func(m *quirev1.WatchIndexStatusResponse) *quirev1.IndexStatus { return m.GetStatus() })
}
