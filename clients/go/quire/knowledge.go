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
	return c.CreateCollectionWithModel(ctx, name, "")
}

// CreateCollectionWithModel creates a collection whose vectors come from embeddingModel (a
// name from ListModels that the server has loaded; "" for the deployment's default), fixed
// for the collection's life. An unknown or unloaded model is ErrInvalidRequest.
func (c *Client) CreateCollectionWithModel(ctx context.Context, name, embeddingModel string) (*quirev1.Collection, error) {
	req := &quirev1.CreateCollectionRequest{Name: name, EmbeddingModel: embeddingModel}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.CreateCollectionRequest) (*quirev1.CreateCollectionResponse, error) {
		return c.knowledge.CreateCollection(ctx, r)
	})
	return resp.GetCollection(), err
}

// ListModels returns the embedding models the deployment knows: dimensions, whether each is
// prepared and loaded, and which is the default.
func (c *Client) ListModels(ctx context.Context) ([]*quirev1.EmbeddingModel, error) {
	resp, err := unary(ctx, &quirev1.ListModelsRequest{}, func(ctx context.Context, r *quirev1.ListModelsRequest) (*quirev1.ListModelsResponse, error) {
		return c.knowledge.ListModels(ctx, r)
	})
	return resp.GetModels(), err
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

// UploadDocument streams a file: meta first (collection, file name, optional MIME type,
// ExternalKey and Metadata; a DocumentId replaces that document's content), then the bytes of
// r in ChunkSize messages, and returns the stored document. UploadDocumentResult also returns
// what the upload did. Never retried. Default deadline: 10 min for the whole stream.
func (c *Client) UploadDocument(ctx context.Context, meta *quirev1.UploadMetadata, r io.Reader) (*quirev1.Document, error) {
	resp, err := c.UploadDocumentResult(ctx, meta, r)
	return resp.GetDocument(), err
}

// UploadDocumentResult is UploadDocument returning the whole response: the Document and the
// Outcome (CREATED, REPLACED, UNCHANGED or METADATA_UPDATED). With meta.ExternalKey set
// (quire.Key), an upload of a key the collection already holds replaces that document, or
// changes nothing (UNCHANGED) when bytes, name, type and metadata are the same.
func (c *Client) UploadDocumentResult(ctx context.Context, meta *quirev1.UploadMetadata, r io.Reader) (*quirev1.UploadDocumentResponse, error) {
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
	return resp, nil
}

// Key returns a pointer to key, for the optional UploadMetadata.ExternalKey:
// &quirev1.UploadMetadata{CollectionId: cid, FileName: "a.md", ExternalKey: quire.Key("docs/a.md")}.
func Key(key string) *string { return &key }

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

// GetDocumentByKey returns the live document of a collection that holds an external key
// (ErrDocumentNotFound when none does).
func (c *Client) GetDocumentByKey(ctx context.Context, collectionID, externalKey string) (*quirev1.Document, error) {
	req := &quirev1.GetDocumentRequest{CollectionId: collectionID, ExternalKey: &externalKey}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.GetDocumentRequest) (*quirev1.GetDocumentResponse, error) {
		return c.knowledge.GetDocument(ctx, r)
	})
	return resp.GetDocument(), err
}

// ListDocuments returns one page (Documents, NextCursor), newest first, of the documents
// matching req.Filter (unset: all); see Documents for an iterator.
func (c *Client) ListDocuments(ctx context.Context, req *quirev1.ListDocumentsRequest) (*quirev1.ListDocumentsResponse, error) {
	return unary(ctx, req, func(ctx context.Context, r *quirev1.ListDocumentsRequest) (*quirev1.ListDocumentsResponse, error) {
		return c.knowledge.ListDocuments(ctx, r)
	})
}

// DeleteDocument removes a document and returns it.
func (c *Client) DeleteDocument(ctx context.Context, documentID string) (*quirev1.Document, error) {
	req := &quirev1.DeleteDocumentRequest{DocumentId: documentID}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.DeleteDocumentRequest) (*quirev1.DeleteDocumentResponse, error) {
		return c.knowledge.DeleteDocument(ctx, r)
	})
	return resp.GetDocument(), err
}

// DeleteDocumentByKey removes the live document of a collection that holds an external key
// and returns it (ErrDocumentNotFound when none does).
func (c *Client) DeleteDocumentByKey(ctx context.Context, collectionID, externalKey string) (*quirev1.Document, error) {
	req := &quirev1.DeleteDocumentRequest{CollectionId: collectionID, ExternalKey: &externalKey}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.DeleteDocumentRequest) (*quirev1.DeleteDocumentResponse, error) {
		return c.knowledge.DeleteDocument(ctx, r)
	})
	return resp.GetDocument(), err
}

// DeleteDocuments removes a collection's documents named by exactly one of ExternalKeys
// (1–1,000), DocumentIds (1–1,000) or Filter, in one transaction. The response has
// DeletedCount, the collection's Revision and the MissingKeys / MissingDocumentIds.
func (c *Client) DeleteDocuments(ctx context.Context, req *quirev1.DeleteDocumentsRequest) (*quirev1.DeleteDocumentsResponse, error) {
	return unary(ctx, req, func(ctx context.Context, r *quirev1.DeleteDocumentsRequest) (*quirev1.DeleteDocumentsResponse, error) {
		return c.knowledge.DeleteDocuments(ctx, r)
	})
}

// UpdateDocumentMetadata changes one document's metadata, named by DocumentId or by
// CollectionId + ExternalKey, without re-uploading it: Patch (build it with NewMetadata) is a
// JSON merge patch (a nil value removes its key), or the whole new metadata when Replace is
// set. Returns the document with its new metadata and revision (unchanged when the metadata
// already was the result).
func (c *Client) UpdateDocumentMetadata(ctx context.Context, req *quirev1.UpdateDocumentMetadataRequest) (*quirev1.Document, error) {
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.UpdateDocumentMetadataRequest) (*quirev1.UpdateDocumentMetadataResponse, error) {
		return c.knowledge.UpdateDocumentMetadata(ctx, r)
	})
	return resp.GetDocument(), err
}

// WatchDocuments yields every document's current state, then a Document at each change of
// status or index state in the collection (status DELETED once removed); documentIDs (at
// most 1,000) restrict it to those documents. It has no default deadline: it runs until ctx
// is cancelled or the loop breaks. WaitUntilSearchable is built on it.
func (c *Client) WatchDocuments(ctx context.Context, collectionID string, documentIDs ...string) iter.Seq2[*quirev1.Document, error] {
	req := &quirev1.WatchDocumentsRequest{CollectionId: collectionID, DocumentIds: documentIDs}
	return serverStream(ctx, c, "WatchDocuments", req,
		func(ctx context.Context, r *quirev1.WatchDocumentsRequest) (grpc.ServerStreamingClient[quirev1.WatchDocumentsResponse], error) {
			return c.knowledge.WatchDocuments(ctx, r)
		},
		func(m *quirev1.WatchDocumentsResponse) *quirev1.Document {
			// The state's token: a read after it (a search once a document is INDEXED) is
			// then served by a replica only when it has replayed that state.
			c.tokens.observeToken(m.GetConsistencyToken())
			return m.GetDocument()
		})
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

// DeleteAgent deletes an agent (its collections stay) and returns it as it was.
func (c *Client) DeleteAgent(ctx context.Context, agentID string) (*quirev1.Agent, error) {
	req := &quirev1.DeleteAgentRequest{AgentId: agentID}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.DeleteAgentRequest) (*quirev1.DeleteAgentResponse, error) {
		return c.knowledge.DeleteAgent(ctx, r)
	})
	return resp.GetAgent(), err
}

// ListAgents returns one page of the organisation's agents by id (Agents, NextCursor); see
// Agents for an iterator.
func (c *Client) ListAgents(ctx context.Context, req *quirev1.ListAgentsRequest) (*quirev1.ListAgentsResponse, error) {
	return unary(ctx, req, func(ctx context.Context, r *quirev1.ListAgentsRequest) (*quirev1.ListAgentsResponse, error) {
		return c.knowledge.ListAgents(ctx, r)
	})
}

// SearchKnowledge searches an agent's current attachments (AgentId) or CollectionIds with the
// organisation's retrieval mode; the response has Hits, the serving Mode and Cached. Filter
// (see quire.Eq etc.) narrows every retrieval arm to matching documents; IncludeMetadata
// returns each hit's document metadata.
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
