package main

import (
	"context"
	"errors"
	"io"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/quire/quire/clients/go/quire"
	"github.com/quire/quire/clients/go/quirev1"
)

// helperFake answers the calls behind the client steps.
type helperFake struct {
	quirev1.UnimplementedPagesServiceServer
	quirev1.UnimplementedKnowledgeServiceServer
}

func (helperFake) ListCollections(ctx context.Context, _ *quirev1.ListCollectionsRequest) (*quirev1.ListCollectionsResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	if got := md.Get("authorization"); len(got) != 1 || got[0] != "Bearer tok-read" {
		return nil, status.Error(codes.Unauthenticated, "bad key")
	}
	return &quirev1.ListCollectionsResponse{Collections: []*quirev1.Collection{{Name: "a"}, {Name: "b"}}}, nil
}

func (helperFake) UploadDocuments(stream grpc.ClientStreamingServer[quirev1.UploadDocumentsRequest, quirev1.UploadDocumentsResponse]) error {
	resp := &quirev1.UploadDocumentsResponse{SchemaVersion: 1}
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return stream.SendAndClose(resp)
		}
		if err != nil {
			return err
		}
		if m := msg.GetMetadata(); m != nil {
			resp.Results = append(resp.Results, &quirev1.UploadResult{Index: uint32(len(resp.Results)),
				Outcome:  quirev1.UploadOutcome_UPLOAD_OUTCOME_CREATED,
				Document: &quirev1.Document{FileName: m.GetFileName(), ExternalKey: m.GetExternalKey(), Metadata: m.GetMetadata()}})
			continue
		}
		last := resp.Results[len(resp.Results)-1].Document
		last.SizeBytes += uint64(len(msg.GetData()))
	}
}

func (helperFake) GetDocument(_ context.Context, r *quirev1.GetDocumentRequest) (*quirev1.GetDocumentResponse, error) {
	return &quirev1.GetDocumentResponse{Document: &quirev1.Document{DocumentId: r.GetDocumentId(), CollectionId: "c1",
		Status: quirev1.DocumentStatus_DOCUMENT_STATUS_PENDING}}, nil
}

func (helperFake) WatchDocuments(r *quirev1.WatchDocumentsRequest, stream grpc.ServerStreamingServer[quirev1.WatchDocumentsResponse]) error {
	for _, id := range r.GetDocumentIds() {
		_ = stream.Send(&quirev1.WatchDocumentsResponse{Document: &quirev1.Document{DocumentId: id, CollectionId: "c1",
			Status: quirev1.DocumentStatus_DOCUMENT_STATUS_READY, IndexState: quirev1.DocumentIndexState_DOCUMENT_INDEX_STATE_INDEXED}})
	}
	<-stream.Context().Done()
	return nil
}

const helperScenarios = `{
  "scenarios": [
    {"name": "iterate_collections", "steps": [
      {"client": "iterate", "key": "read", "args": {"list": "collections", "page_size": 1},
       "expect": {"ok": {"count": 2, "items": [{"name": "a"}, {"name": "b"}]}}}
    ]},
    {"name": "iterate_with_wrong_key_fails_typed", "steps": [
      {"client": "iterate", "key": "write", "args": {"list": "collections"},
       "expect": {"error": {"grpc_code": "UNAUTHENTICATED"}}}
    ]},
    {"name": "upload_documents_in_order", "vars": {"cid": "c1"}, "steps": [
      {"client": "upload_documents", "key": "write",
       "args": {"collection_id": "${cid}", "documents": [
         {"fileName": "a.txt", "text": "hello", "externalKey": "k1", "metadata": {"n": 3, "tags": ["x"]}},
         {"fileName": "b.txt", "text": ""}]},
       "save": {"key": "results.0.document.externalKey"},
       "expect": {"ok": {"results": [
         {"index": 0, "outcome": "UPLOAD_OUTCOME_CREATED", "document": {"sizeBytes": 5, "metadata": {"n": 3, "tags": ["x"]}}},
         {"index": 1, "outcome": "UPLOAD_OUTCOME_CREATED", "document": {"fileName": "b.txt", "externalKey": ""}}]}}},
      {"client": "iterate", "key": "read", "args": {"list": "collections"}, "expect": {"ok": {"count": 2}}}
    ]},
    {"name": "wait_indexed", "steps": [
      {"client": "wait_until_searchable", "key": "read", "args": {"document_ids": ["d2", "d1"], "timeout_ms": 5000},
       "expect": {"ok": {"complete": true, "outcomes": [
         {"documentId": "d2", "outcome": "INDEXED", "reason": ""}, {"documentId": "d1", "outcome": "INDEXED"}]}}}
    ]},
    {"name": "wait_bad_target", "steps": [
      {"client": "wait_until_searchable", "key": "read", "args": {"timeout_ms": 1000}}
    ]},
    {"name": "iterate_agents_required_skips", "requires": ["KnowledgeService.ListAgents"], "steps": [
      {"client": "iterate", "key": "read", "args": {"list": "agents"}}
    ]},
    {"name": "unknown_helper_fails", "steps": [
      {"client": "upload_folder", "key": "write", "args": {}}
    ]}
  ]
}`

func TestClientStepsAgainstFakeServer(t *testing.T) {
	dialer := serveFake(t, helperFake{}, helperFake{})
	conn := fakeConn(t, dialer)
	client, err := quire.Dial(context.Background(), "passthrough:///bufnet", quire.WithInsecure(), quire.WithAPIKey(""),
		quire.WithDialOptions(grpc.WithContextDialer(dialer)))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	scenarios := loadText(t, helperScenarios)
	r := &runner{conn: conn, client: client, keys: map[string]string{"write": "tok-write", "read": "tok-read"}, fixtures: map[string]any{}}
	want := map[string]string{
		"iterate_collections":                "PASS",
		"iterate_with_wrong_key_fails_typed": "PASS",
		"upload_documents_in_order":          "PASS",
		"wait_indexed":                       "PASS",
		"wait_bad_target":                    "FAIL",
		"iterate_agents_required_skips":      "SKIP",
		"unknown_helper_fails":               "FAIL",
	}
	runAll(t, r, scenarios, want, map[string]string{
		"unknown_helper_fails": `scenario error: unknown client helper "upload_folder"`,
		"wait_bad_target":      "scenario error: wait_until_searchable wants document_ids or collection_id",
	})
}
