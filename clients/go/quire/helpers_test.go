package quire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/quire/quire/clients/go/quirev1"
)

// knowledgeFake answers the calls the helpers make; each test sets what it needs.
type knowledgeFake struct {
	quirev1.UnimplementedPagesServiceServer
	quirev1.UnimplementedKnowledgeServiceServer

	mu       sync.Mutex
	batches  [][]*quirev1.UploadMetadata // per UploadDocuments call
	bytes    []int                       // per UploadDocuments call
	singles  []*quirev1.UploadMetadata   // UploadDocument calls
	refuse   func(*quirev1.UploadMetadata) *quirev1.ErrorDetail
	maxBytes int // UploadDocuments: PAYLOAD_TOO_LARGE over this (0: no bound)

	docs      map[string]*quirev1.Document // GetDocument
	watch     func(*quirev1.WatchDocumentsRequest, grpc.ServerStreamingServer[quirev1.WatchDocumentsResponse], int) error
	watches   int
	listCalls int
	agents    []*quirev1.Agent
	pageLists func(req *quirev1.ListPagesRequest) *quirev1.PageList
}

// uploadMessage is a message of either upload stream.
type uploadMessage interface {
	GetMetadata() *quirev1.UploadMetadata
	GetData() []byte
}

// receiveUpload reads an upload stream to its end: the metadata messages and the bytes after
// each (by position).
func receiveUpload[M uploadMessage](recv func() (M, error)) ([]*quirev1.UploadMetadata, []int, error) {
	var metas []*quirev1.UploadMetadata
	var sizes []int
	for {
		msg, err := recv()
		if errors.Is(err, io.EOF) {
			return metas, sizes, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if m := msg.GetMetadata(); m != nil {
			metas, sizes = append(metas, m), append(sizes, 0)
			continue
		}
		if len(metas) == 0 {
			return nil, nil, status.Error(codes.InvalidArgument, "data before metadata")
		}
		sizes[len(sizes)-1] += len(msg.GetData())
	}
}

func (f *knowledgeFake) UploadDocuments(stream grpc.ClientStreamingServer[quirev1.UploadDocumentsRequest, quirev1.UploadDocumentsResponse]) error {
	metas, sizes, err := receiveUpload(stream.Recv)
	if err != nil {
		return err
	}
	total := 0
	for _, n := range sizes {
		total += n
	}
	f.mu.Lock()
	f.batches = append(f.batches, metas)
	f.bytes = append(f.bytes, total)
	f.mu.Unlock()
	if len(metas) > MaxBatchDocuments {
		return status.Error(codes.InvalidArgument, "more than 1000 documents")
	}
	if f.maxBytes > 0 && total > f.maxBytes {
		st, _ := status.New(codes.ResourceExhausted, "too large").WithDetails(&quirev1.ErrorDetail{
			Code: quirev1.ErrorCode_ERROR_CODE_PAYLOAD_TOO_LARGE, Message: "too large"})
		return st.Err()
	}
	resp := &quirev1.UploadDocumentsResponse{SchemaVersion: 1}
	for i, m := range metas {
		r := &quirev1.UploadResult{Index: uint32(i)}
		if f.refuse != nil {
			r.Error = f.refuse(m)
		}
		if r.Error == nil {
			r.Outcome = quirev1.UploadOutcome_UPLOAD_OUTCOME_CREATED
			r.Document = &quirev1.Document{DocumentId: "d-" + m.GetFileName(), FileName: m.GetFileName(), ExternalKey: m.GetExternalKey()}
		}
		resp.Results = append(resp.Results, r)
	}
	return stream.SendAndClose(resp)
}

func (f *knowledgeFake) UploadDocument(stream grpc.ClientStreamingServer[quirev1.UploadDocumentRequest, quirev1.UploadDocumentResponse]) error {
	metas, sizes, err := receiveUpload(stream.Recv)
	if err != nil {
		return err
	}
	if len(metas) != 1 {
		return status.Error(codes.InvalidArgument, "one metadata message expected")
	}
	f.mu.Lock()
	f.singles = append(f.singles, metas[0])
	f.mu.Unlock()
	return stream.SendAndClose(&quirev1.UploadDocumentResponse{
		Outcome:  quirev1.UploadOutcome_UPLOAD_OUTCOME_REPLACED,
		Document: &quirev1.Document{DocumentId: "d-" + metas[0].GetFileName(), SizeBytes: uint64(sizes[0]), ExternalKey: metas[0].GetExternalKey()},
	})
}

func (f *knowledgeFake) GetDocument(_ context.Context, r *quirev1.GetDocumentRequest) (*quirev1.GetDocumentResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	doc, ok := f.docs[r.GetDocumentId()]
	if !ok {
		st, _ := status.New(codes.NotFound, "no such document").WithDetails(&quirev1.ErrorDetail{
			Code: quirev1.ErrorCode_ERROR_CODE_DOCUMENT_NOT_FOUND, Message: "no such document"})
		return nil, st.Err()
	}
	return &quirev1.GetDocumentResponse{Document: doc}, nil
}

func (f *knowledgeFake) WatchDocuments(r *quirev1.WatchDocumentsRequest, stream grpc.ServerStreamingServer[quirev1.WatchDocumentsResponse]) error {
	f.mu.Lock()
	f.watches++
	n := f.watches
	f.mu.Unlock()
	return f.watch(r, stream, n)
}

func (f *knowledgeFake) ListAgents(_ context.Context, r *quirev1.ListAgentsRequest) (*quirev1.ListAgentsResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listCalls++
	start := 0
	if r.GetCursor() != "" {
		_, _ = fmt.Sscanf(r.GetCursor(), "at-%d", &start)
	}
	end := min(start+int(r.GetLimit()), len(f.agents))
	resp := &quirev1.ListAgentsResponse{Agents: f.agents[start:end]}
	if end < len(f.agents) {
		resp.NextCursor = fmt.Sprintf("at-%d", end)
	}
	return resp, nil
}

func (f *knowledgeFake) ListPages(_ context.Context, r *quirev1.ListPagesRequest) (*quirev1.ListPagesResponse, error) {
	f.mu.Lock()
	f.listCalls++
	f.mu.Unlock()
	return &quirev1.ListPagesResponse{PageList: f.pageLists(r)}, nil
}

func startKnowledgeFake(t *testing.T, f *knowledgeFake) *Client {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	quirev1.RegisterPagesServiceServer(srv, f)
	quirev1.RegisterKnowledgeServiceServer(srv, f)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	dialer := grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) })
	client, err := Dial(context.Background(), "passthrough:///bufnet", WithInsecure(), WithAPIKey(""), WithDialOptions(dialer))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return client
}

func filterJSON(t *testing.T, f *quirev1.MetadataFilter) string {
	t.Helper()
	data, err := protojson.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	// protojson adds random spaces to stop callers depending on its layout; compare compact.
	return strings.Join(strings.Fields(string(data)), "")
}

type tier string

func TestFilterBuilders(t *testing.T) {
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		filter *quirev1.MetadataFilter
		want   string
	}{
		{Eq("customer", "acme"), `{"field":{"field":"customer","equals":"acme"}}`},
		{Eq("tier", tier("gold")), `{"field":{"field":"tier","equals":"gold"}}`},
		{Eq("version", uint8(3)), `{"field":{"field":"version","equals":3}}`},
		{Eq("draft", false), `{"field":{"field":"draft","equals":false}}`},
		{AnyOf("customer.tier", "gold", "silver"), `{"field":{"field":"customer.tier","in":["gold","silver"]}}`},
		{AnyOf("n", 1.5, 2), `{"field":{"field":"n","in":[1.5,2]}}`},
		{Range("price", Gte(10), Lt(int64(20))), `{"field":{"field":"price","numberRange":{"gte":10,"lt":20}}}`},
		{Range("score", Gt(0.5), Lte(float32(1))), `{"field":{"field":"score","numberRange":{"gt":0.5,"lte":1}}}`},
		{TimeRange("published", AtOrAfter(start), Before(start.Add(24*time.Hour))),
			`{"field":{"field":"published","timeRange":{"gte":"2026-03-01T00:00:00Z","lt":"2026-03-02T00:00:00Z"}}}`},
		{TimeRange("seen", After(start), AtOrBefore(start)),
			`{"field":{"field":"seen","timeRange":{"gt":"2026-03-01T00:00:00Z","lte":"2026-03-01T00:00:00Z"}}}`},
		{Exists("archived"), `{"field":{"field":"archived","exists":true}}`},
		{Missing("archived"), `{"field":{"field":"archived","exists":false}}`},
		{All(Eq("a", "x"), Not(Any(Eq("b", 1), Exists("c")))),
			`{"all":{"filters":[{"field":{"field":"a","equals":"x"}},{"not":{"any":{"filters":[{"field":{"field":"b","equals":1}},{"field":{"field":"c","exists":true}}]}}}]}}`},
	}
	for _, c := range cases {
		if got := filterJSON(t, c.filter); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

func TestNewMetadataRefusesNonJSONValues(t *testing.T) {
	s, err := NewMetadata(map[string]any{"customer": "acme", "n": 3, "tags": []any{"a", nil}, "nested": map[string]any{"ok": true}})
	if err != nil || s.GetFields()["n"].GetNumberValue() != 3 || s.GetFields()["nested"].GetStructValue().GetFields()["ok"].GetBoolValue() != true {
		t.Fatalf("NewMetadata = %v, %v", s, err)
	}
	_, err = NewMetadata(map[string]any{"when": time.Now()})
	if !errors.Is(err, ErrInvalidRequest) || FromError(err).FieldViolations()[0].GetField() != "metadata" {
		t.Fatalf("a time.Time value: got %v, want INVALID_REQUEST on field metadata", err)
	}
}

func tinyItems(n int, size int) []UploadItem {
	items := make([]UploadItem, n)
	for i := range items {
		items[i] = UploadItem{FileName: fmt.Sprintf("f%04d.txt", i), Data: make([]byte, size), ExternalKey: fmt.Sprintf("k%d", i)}
	}
	return items
}

func checkIndexes(t *testing.T, resp *quirev1.UploadDocumentsResponse, n int) {
	t.Helper()
	if len(resp.GetResults()) != n {
		t.Fatalf("%d results, want %d", len(resp.GetResults()), n)
	}
	for i, r := range resp.GetResults() {
		if int(r.GetIndex()) != i {
			t.Fatalf("result %d has index %d", i, r.GetIndex())
		}
	}
}

func TestUploadDocumentsSplitsAtTheDocumentBound(t *testing.T) {
	f := &knowledgeFake{}
	client := startKnowledgeFake(t, f)
	// 1,000 documents: one call (at the bound); 1,001: two calls (one past it).
	resp, err := client.UploadDocuments(context.Background(), "c1", tinyItems(1000, 1))
	if err != nil || len(f.batches) != 1 || len(f.batches[0]) != 1000 {
		t.Fatalf("1000 items: err %v, calls %d", err, len(f.batches))
	}
	checkIndexes(t, resp, 1000)
	f.batches = nil
	resp, err = client.UploadDocuments(context.Background(), "c1", tinyItems(1001, 1))
	if err != nil || len(f.batches) != 2 || len(f.batches[0]) != 1000 || len(f.batches[1]) != 1 {
		t.Fatalf("1001 items: err %v, calls %d", err, len(f.batches))
	}
	checkIndexes(t, resp, 1001)
	last := resp.GetResults()[1000]
	if last.GetDocument().GetExternalKey() != "k1000" || f.batches[1][0].GetCollectionId() != "c1" {
		t.Fatalf("the 1001st result is %v", last)
	}
}

func TestUploadDocumentsSplitsAtTheByteBound(t *testing.T) {
	f := &knowledgeFake{maxBytes: 8}
	client := startKnowledgeFake(t, f)
	// Two 4-byte files fit a bound of 8 bytes (at the bound); with 7 each goes alone.
	if _, err := client.UploadDocuments(context.Background(), "c1", tinyItems(4, 4), WithBatchBytes(8)); err != nil || len(f.batches) != 2 {
		t.Fatalf("bound 8: err %v, calls %d", err, len(f.batches))
	}
	f.batches = nil
	if _, err := client.UploadDocuments(context.Background(), "c1", tinyItems(3, 4), WithBatchBytes(7)); err != nil || len(f.batches) != 3 {
		t.Fatalf("bound 7: err %v, calls %d", err, len(f.batches))
	}
	// A file over the bound on its own is sent alone; the server's PAYLOAD_TOO_LARGE becomes its
	// result and the others are stored.
	f.batches = nil
	items := tinyItems(3, 4)
	items[1].Data = make([]byte, 9)
	resp, err := client.UploadDocuments(context.Background(), "c1", items, WithBatchBytes(8))
	if err != nil {
		t.Fatal(err)
	}
	checkIndexes(t, resp, 3)
	if resp.GetResults()[1].GetError().GetCode() != quirev1.ErrorCode_ERROR_CODE_PAYLOAD_TOO_LARGE ||
		resp.GetResults()[0].GetOutcome() != quirev1.UploadOutcome_UPLOAD_OUTCOME_CREATED ||
		resp.GetResults()[2].GetOutcome() != quirev1.UploadOutcome_UPLOAD_OUTCOME_CREATED {
		t.Fatalf("results %v", resp.GetResults())
	}
}

func TestUploadDocumentsPerDocumentRefusals(t *testing.T) {
	f := &knowledgeFake{refuse: func(m *quirev1.UploadMetadata) *quirev1.ErrorDetail {
		if strings.HasSuffix(m.GetFileName(), ".exe") {
			return &quirev1.ErrorDetail{Code: quirev1.ErrorCode_ERROR_CODE_UNSUPPORTED_MEDIA_TYPE}
		}
		return nil
	}}
	client := startKnowledgeFake(t, f)
	items := []UploadItem{
		{FileName: "a.txt", Data: []byte("a"), Metadata: map[string]any{"customer": "acme"}},
		{FileName: "b.txt", Data: []byte("b"), Metadata: map[string]any{"bad": struct{}{}}}, // not JSON: never sent
		{FileName: "c.exe", Data: []byte("c")},
		{FileName: "d.txt", Data: []byte("d")},
	}
	resp, err := client.UploadDocuments(context.Background(), "c1", items)
	if err != nil {
		t.Fatal(err)
	}
	checkIndexes(t, resp, 4)
	r := resp.GetResults()
	if r[0].GetOutcome() != quirev1.UploadOutcome_UPLOAD_OUTCOME_CREATED || r[3].GetDocument().GetFileName() != "d.txt" {
		t.Fatalf("stored results wrong: %v", r)
	}
	if r[1].GetError().GetFieldViolations()[0].GetField() != "metadata" || r[2].GetError().GetCode() != quirev1.ErrorCode_ERROR_CODE_UNSUPPORTED_MEDIA_TYPE {
		t.Fatalf("refusals wrong: %v / %v", r[1], r[2])
	}
	sent := f.batches[0]
	if len(sent) != 3 || sent[0].GetMetadata().GetFields()["customer"].GetStringValue() != "acme" || sent[1].ExternalKey != nil {
		t.Fatalf("sent %v", sent)
	}
}

func TestUploadFolder(t *testing.T) {
	dir := t.TempDir()
	write := func(rel string, size int) {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.txt", 10)
	write("a/one.md", 10)
	write("a/virus.exe", 10)
	write("big.pdf", LargeFileBytes+1) // streamed alone
	write("edge.txt", LargeFileBytes)  // at the bound: batched
	write(".hidden", 10)               // skipped
	write(".git/config", 10)           // skipped with its directory
	f := &knowledgeFake{refuse: func(m *quirev1.UploadMetadata) *quirev1.ErrorDetail {
		if strings.HasSuffix(m.GetFileName(), ".exe") {
			return &quirev1.ErrorDetail{Code: quirev1.ErrorCode_ERROR_CODE_UNSUPPORTED_MEDIA_TYPE, Message: "no"}
		}
		return nil
	}}
	client := startKnowledgeFake(t, f)
	results, err := client.UploadFolder(context.Background(), "c1", dir, FolderOptions{
		Concurrency: 2,
		Metadata:    func(rel string) map[string]any { return map[string]any{"path": rel} },
	})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range results {
		paths = append(paths, r.Path)
		if r.Key != r.Path {
			t.Errorf("%s: key %q, want its relative path", r.Path, r.Key)
		}
	}
	if got := strings.Join(paths, " "); got != "a/one.md a/virus.exe b.txt big.pdf edge.txt" {
		t.Fatalf("paths %s", got)
	}
	if !errors.Is(results[1].Err, ErrUnsupportedMediaType) || results[1].Document != nil {
		t.Fatalf("virus.exe: %+v", results[1])
	}
	if results[3].Outcome != quirev1.UploadOutcome_UPLOAD_OUTCOME_REPLACED || results[3].Document.GetSizeBytes() != LargeFileBytes+1 {
		t.Fatalf("big.pdf: %+v", results[3])
	}
	for _, i := range []int{0, 2, 4} {
		if results[i].Err != nil || results[i].Outcome != quirev1.UploadOutcome_UPLOAD_OUTCOME_CREATED || results[i].Document.GetExternalKey() != results[i].Path {
			t.Fatalf("%s: %+v", results[i].Path, results[i])
		}
	}
	if len(f.singles) != 1 || f.singles[0].GetMetadata().GetFields()["path"].GetStringValue() != "big.pdf" {
		t.Fatalf("single uploads %v", f.singles)
	}
	if _, err := client.UploadFolder(context.Background(), "c1", filepath.Join(dir, "missing"), FolderOptions{}); err == nil {
		t.Fatal("a missing folder uploaded without error")
	}
}

func doc(id string, status quirev1.DocumentStatus, state quirev1.DocumentIndexState) *quirev1.Document {
	return &quirev1.Document{DocumentId: id, CollectionId: "c1", Status: status, IndexState: state}
}

const (
	ready   = quirev1.DocumentStatus_DOCUMENT_STATUS_READY
	pending = quirev1.DocumentStatus_DOCUMENT_STATUS_PENDING
	failed  = quirev1.DocumentStatus_DOCUMENT_STATUS_FAILED
)

func TestWaitUntilSearchable(t *testing.T) {
	f := &knowledgeFake{docs: map[string]*quirev1.Document{
		"a": doc("a", pending, quirev1.DocumentIndexState_DOCUMENT_INDEX_STATE_PENDING),
		"b": doc("b", pending, quirev1.DocumentIndexState_DOCUMENT_INDEX_STATE_PENDING),
		"c": doc("c", ready, quirev1.DocumentIndexState_DOCUMENT_INDEX_STATE_PENDING),
		"e": doc("e", ready, quirev1.DocumentIndexState_DOCUMENT_INDEX_STATE_NO_TEXT),
	}}
	var asked [][]string
	f.watch = func(r *quirev1.WatchDocumentsRequest, stream grpc.ServerStreamingServer[quirev1.WatchDocumentsResponse], n int) error {
		f.mu.Lock()
		asked = append(asked, r.GetDocumentIds())
		f.mu.Unlock()
		send := func(d *quirev1.Document) { _ = stream.Send(&quirev1.WatchDocumentsResponse{Document: d}) }
		if n == 1 { // the first watch sends the current states, then drops
			send(doc("a", pending, quirev1.DocumentIndexState_DOCUMENT_INDEX_STATE_PENDING))
			send(doc("b", ready, quirev1.DocumentIndexState_DOCUMENT_INDEX_STATE_PENDING))
			return status.Error(codes.Unavailable, "server restarting")
		}
		send(doc("a", ready, quirev1.DocumentIndexState_DOCUMENT_INDEX_STATE_INDEXED))
		d := doc("b", failed, quirev1.DocumentIndexState_DOCUMENT_INDEX_STATE_FAILED)
		d.ExtractError = "encrypted PDF"
		send(d)
		<-stream.Context().Done() // c never becomes searchable
		return nil
	}
	client := startKnowledgeFake(t, f)
	started := time.Now()
	res, err := client.WaitUntilSearchable(context.Background(), WaitTarget{DocumentIDs: []string{"a", "b", "c", "d", "e"}}, 700*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(started); elapsed < 700*time.Millisecond || elapsed > 5*time.Second {
		t.Fatalf("returned after %v", elapsed)
	}
	want := []DocumentOutcome{
		{"a", WaitIndexed, ""}, {"b", WaitFailed, "encrypted PDF"}, {"c", WaitTimedOut, ""},
		{"d", WaitDeleted, ""}, {"e", WaitNoText, ""},
	}
	if res.Complete || fmt.Sprint(res.Outcomes) != fmt.Sprint(want) {
		t.Fatalf("got %v complete=%v\nwant %v", res.Outcomes, res.Complete, want)
	}
	// d (not found) and e (already final) are never watched; the reconnect asks again.
	if len(asked) < 2 || strings.Join(asked[0], ",") != "a,b,c" {
		t.Fatalf("watches asked for %v", asked)
	}
}

func TestWaitUntilSearchableCompletesAndRefusesBadTargets(t *testing.T) {
	f := &knowledgeFake{watch: func(r *quirev1.WatchDocumentsRequest, stream grpc.ServerStreamingServer[quirev1.WatchDocumentsResponse], _ int) error {
		for _, id := range r.GetDocumentIds() {
			_ = stream.Send(&quirev1.WatchDocumentsResponse{Document: doc(id, ready, quirev1.DocumentIndexState_DOCUMENT_INDEX_STATE_INDEXED)})
		}
		<-stream.Context().Done()
		return nil
	}}
	client := startKnowledgeFake(t, f)
	res, err := client.WaitUntilSearchable(context.Background(), WaitTarget{Documents: []*quirev1.Document{
		doc("x", pending, quirev1.DocumentIndexState_DOCUMENT_INDEX_STATE_PENDING),
		doc("y", pending, quirev1.DocumentIndexState_DOCUMENT_INDEX_STATE_PENDING),
	}}, time.Minute)
	if err != nil || !res.Complete || res.Outcomes[0].Outcome != WaitIndexed || res.Outcomes[1].DocumentID != "y" {
		t.Fatalf("got %+v, %v", res, err)
	}
	for _, bad := range []WaitTarget{{}, {DocumentIDs: []string{"a"}, CollectionID: "c1"}} {
		_, err := client.WaitUntilSearchable(context.Background(), bad, time.Second)
		if !errors.Is(err, ErrInvalidRequest) || FromError(err).FieldViolations()[0].GetField() != "document_ids" {
			t.Fatalf("target %+v: got %v", bad, err)
		}
	}
	// A watch refused for another reason than UNAVAILABLE is the caller's error.
	f.watch = func(*quirev1.WatchDocumentsRequest, grpc.ServerStreamingServer[quirev1.WatchDocumentsResponse], int) error {
		return status.Error(codes.PermissionDenied, "no read scope")
	}
	_, err = client.WaitUntilSearchable(context.Background(), WaitTarget{Documents: []*quirev1.Document{doc("x", pending, 0)}}, time.Minute)
	if !errors.Is(err, ErrPermissionDenied) {
		t.Fatalf("got %v, want PERMISSION_DENIED", err)
	}
}

func TestAgentsIteratorFollowsCursorsLazily(t *testing.T) {
	f := &knowledgeFake{}
	for i := range 5 {
		f.agents = append(f.agents, &quirev1.Agent{AgentId: fmt.Sprintf("agent-%d", i)})
	}
	client := startKnowledgeFake(t, f)
	var ids []string
	for agent, err := range client.Agents(context.Background(), 2) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, agent.GetAgentId())
	}
	if len(ids) != 5 || ids[4] != "agent-4" || f.listCalls != 3 {
		t.Fatalf("ids %v after %d calls", ids, f.listCalls)
	}
	f.listCalls = 0
	for range client.Agents(context.Background(), 2) {
		break
	}
	if f.listCalls != 1 {
		t.Fatalf("breaking after the first agent made %d calls", f.listCalls)
	}
}

func TestPagesIteratorRestartsWithoutRepeating(t *testing.T) {
	f := &knowledgeFake{}
	restarted := false
	f.pageLists = func(r *quirev1.ListPagesRequest) *quirev1.PageList {
		switch r.GetCursor() {
		case "":
			if restarted { // after a publish: a new page /a2 before the cursor's place
				return &quirev1.PageList{Pages: []*quirev1.Page{{Path: "/a"}, {Path: "/a2"}, {Path: "/b"}}, NextCursor: "v2"}
			}
			return &quirev1.PageList{Pages: []*quirev1.Page{{Path: "/a"}, {Path: "/b"}}, NextCursor: "v1"}
		case "v1":
			restarted = true
			return &quirev1.PageList{RestartRequired: true}
		default:
			return &quirev1.PageList{Pages: []*quirev1.Page{{Path: "/c"}}}
		}
	}
	client := startKnowledgeFake(t, f)
	req := &quirev1.ListPagesRequest{Namespace: "docs", Limit: 2}
	var paths []string
	for page, err := range client.Pages(context.Background(), req) {
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, page.GetPath())
	}
	if strings.Join(paths, " ") != "/a /b /c" || !proto.Equal(req, &quirev1.ListPagesRequest{Namespace: "docs", Limit: 2}) {
		t.Fatalf("paths %v, request %v", paths, req)
	}
}

func TestIteratorsTakeANilRequest(t *testing.T) {
	f := &knowledgeFake{pageLists: func(r *quirev1.ListPagesRequest) *quirev1.PageList {
		return &quirev1.PageList{Pages: []*quirev1.Page{{Path: "/only"}}}
	}}
	client := startKnowledgeFake(t, f)
	seen := 0
	for page, err := range client.Pages(context.Background(), nil) {
		if err != nil || page.GetPath() != "/only" {
			t.Fatalf("page %v, err %v", page, err)
		}
		seen++
	}
	for _, err := range client.Documents(context.Background(), nil) {
		if !errors.Is(err, ErrUnimplemented) { // the fake has no ListDocuments: the call was made
			t.Fatalf("err %v", err)
		}
		seen++
	}
	if seen != 2 {
		t.Fatalf("%d items and errors, want a page and an error", seen)
	}
}

func TestUploadFolderBatchesAtOneHundredFiles(t *testing.T) {
	for _, c := range []struct{ files, calls int }{{100, 1}, {101, 2}} {
		dir := t.TempDir()
		for i := range c.files {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", i)), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f := &knowledgeFake{}
		client := startKnowledgeFake(t, f)
		results, err := client.UploadFolder(context.Background(), "c1", dir, FolderOptions{Concurrency: 2})
		if err != nil || len(results) != c.files {
			t.Fatalf("%d files: %d results, %v", c.files, len(results), err)
		}
		largest := 0 // the calls run concurrently, in any order
		for _, b := range f.batches {
			largest = max(largest, len(b))
		}
		if len(f.batches) != c.calls || largest != 100 {
			t.Fatalf("%d files: %d calls, the largest of %d files", c.files, len(f.batches), largest)
		}
	}
}

// A DEADLINE_EXCEEDED answer while the caller's context is live is the wait's own timeout,
// even when it comes back before the wait's timer fires; other failures are not.
func TestTimedOutTakesAnEarlyDeadlineStatusAsTheWaitsTimeout(t *testing.T) {
	waitCtx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	early := convert(status.Error(codes.DeadlineExceeded, "Deadline Exceeded"))
	if !timedOut(context.Background(), waitCtx, early) {
		t.Fatal("an early DEADLINE_EXCEEDED was not taken as the wait's timeout")
	}
	if timedOut(context.Background(), waitCtx, status.Error(codes.Unavailable, "gone")) {
		t.Fatal("UNAVAILABLE was taken as a timeout")
	}
	if timedOut(context.Background(), context.Background(), early) {
		t.Fatal("DEADLINE_EXCEEDED without a wait timeout was taken as the wait's timeout")
	}
}
