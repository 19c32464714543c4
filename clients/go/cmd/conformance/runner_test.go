package main

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	"github.com/quire/quire/clients/go/quirev1"
)

func js(t *testing.T, s string) any {
	t.Helper()
	v, err := decodeJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMatchSemantics(t *testing.T) {
	cases := []struct {
		pattern, actual string
		ok              bool
	}{
		{`{}`, `{"a": 1}`, true},
		{`{"a": 3}`, `{"a": "3"}`, true},                                 // numbers and numeric strings by value
		{`{"a": false, "b": 0, "c": "", "d": "0", "e": []}`, `{}`, true}, // absent = default
		{`{"a": "X_UNSPECIFIED"}`, `{}`, true},
		{`{"a": {}}`, `{}`, false}, // a nested object never matches an absent field
		{`{"a": {"$absent": true}}`, `{}`, true},
		{`{"a": [1, 2]}`, `{"a": [1, 2]}`, true},
		{`{"a": [1]}`, `{"a": [1, 2]}`, false},
		{`{"a": {"$len": 2}}`, `{"a": [1, 2]}`, true},
		{`{"a": {"$len": 0}}`, `{}`, true},
		{`{"a": {"$len": 3}}`, `{"a": "héé"}`, true},
		{`{"a": {"$contains": {"p": "/x"}}}`, `{"a": [{"p": "/y"}, {"p": "/x", "q": 1}]}`, true},
		{`{"a": {"$not_contains": {"p": "/x"}}}`, `{"a": [{"p": "/x"}]}`, false},
		{`{"a": {"$each": {"n": {"$nonempty": true}}}}`, `{}`, true},
		{`{"a": {"$each": {"n": {"$nonempty": true}}}}`, `{"a": [{"n": ""}]}`, false},
		{`{"a": {"$nonempty": true, "$ne": "r1"}}`, `{"a": "r2"}`, true},
		{`{"a": {"$nonempty": true, "$ne": "r1"}}`, `{"a": "r1"}`, false},
		{`{"a": {"$nonempty": false}}`, `{}`, true},
		{`{"a": {"$substring": "lade"}}`, `{"a": "marmalade"}`, true},
		{`{"a": {"$gte": 2, "$lt": 3}}`, `{"a": "2"}`, true},
		{`{"a": {"$gt": 0}}`, `{}`, false},
		{`{"a": true}`, `{"a": 1}`, false},
		{`{"a": 1.0}`, `{"a": 1}`, true},
		{`{"a": "NaN"}`, `{"a": "NaN"}`, true},
	}
	for _, c := range cases {
		problems, err := match(js(t, c.pattern), js(t, c.actual), "$")
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		if (len(problems) == 0) != c.ok {
			t.Errorf("match(%s, %s) = %v, want ok=%v", c.pattern, c.actual, problems, c.ok)
		}
	}
	if _, err := match(js(t, `{"$bogus": 1}`), js(t, `1`), "$"); err == nil {
		t.Error("unknown operator must be a scenario error")
	}
}

func TestSubstitute(t *testing.T) {
	env := map[string]any{"n": js(t, `4`), "obj": js(t, `{"a": [1]}`), "s": "x"}
	got, err := substitute(js(t, `{"whole": "${n}", "text": "n=${n} ${s} ${obj}", "o": "${obj}"}`), env)
	if err != nil {
		t.Fatal(err)
	}
	want := js(t, `{"whole": 4, "text": "n=4 x {\"a\":[1]}", "o": {"a": [1]}}`)
	if compact(got) != compact(want) {
		t.Fatalf("got %s", compact(got))
	}
	if _, err := substitute("${missing}", env); err == nil {
		t.Fatal("unknown variable must fail")
	}
	expanded, _ := expandValues(js(t, `{"data": {"$repeat": {"text": "ab", "times": 2}}, "t": {"$text": "hi"}, "b": {"$base64": "aGk="}}`))
	if compact(expanded) != `{"b":"aGk=","data":"YWJhYg==","t":"aGk="}` {
		t.Fatalf("expand: %s", compact(expanded))
	}
	if v := resolvePath(js(t, `{"a": [{"b": "c"}]}`), "a.0.b"); v != "c" {
		t.Fatalf("path: %v", v)
	}
	if v := resolvePath(js(t, `{"a": []}`), "a.0"); v != absent {
		t.Fatalf("missing path: %v", v)
	}
}

// fakeServer implements the streaming RPCs the live server does not have yet, so that the
// runner's streaming paths (bidi discovery, chunked uploads, watches) are exercised.
type fakeServer struct {
	quirev1.UnimplementedPagesServiceServer
	quirev1.UnimplementedKnowledgeServiceServer
	dataMessages []int
}

func (f *fakeServer) SyncPages(stream grpc.BidiStreamingServer[quirev1.SyncPagesRequest, quirev1.SyncPagesResponse]) error {
	md, _ := metadata.FromIncomingContext(stream.Context())
	if got := md.Get("authorization"); len(got) != 1 || got[0] != "Bearer tok-write" {
		return status.Error(codes.Unauthenticated, "bad key")
	}
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	if first.GetStart().GetValidateDiscovery() {
		_ = stream.Send(&quirev1.SyncPagesResponse{Message: &quirev1.SyncPagesResponse_DiscoveryCheck{DiscoveryCheck: &quirev1.DiscoveryCheck{Discovered: 4}}})
		answer, err := stream.Recv()
		if err != nil {
			return err
		}
		if !answer.GetDecision().GetAccept() {
			st, _ := status.New(codes.Aborted, "rejected").WithDetails(&quirev1.ErrorDetail{Code: quirev1.ErrorCode_ERROR_CODE_DISCOVERY_REJECTED})
			return st.Err()
		}
	}
	for i := 0; i < 3; i++ {
		_ = stream.Send(&quirev1.SyncPagesResponse{Message: &quirev1.SyncPagesResponse_Progress{Progress: &quirev1.PageSyncProgress{Stage: quirev1.SyncStage_SYNC_STAGE_FETCHING, Processed: uint32(i)}}})
	}
	return stream.Send(&quirev1.SyncPagesResponse{Message: &quirev1.SyncPagesResponse_Report{Report: &quirev1.SyncReport{
		Namespace: first.GetStart().GetNamespace(), Status: quirev1.SyncStatus_SYNC_STATUS_COMPLETED, Discovered: 4, Updated: 4,
	}}})
}

func (f *fakeServer) UploadDocument(stream grpc.ClientStreamingServer[quirev1.UploadDocumentRequest, quirev1.UploadDocumentResponse]) error {
	var name string
	var size uint64
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return stream.SendAndClose(&quirev1.UploadDocumentResponse{Document: &quirev1.Document{FileName: name, SizeBytes: size, DocumentId: "d1"}})
		}
		if err != nil {
			return err
		}
		if m := msg.GetMetadata(); m != nil {
			name = m.GetFileName()
			continue
		}
		if len(msg.GetData()) > 1024*1024 {
			return status.Error(codes.ResourceExhausted, "message over 1 MiB")
		}
		f.dataMessages = append(f.dataMessages, len(msg.GetData()))
		size += uint64(len(msg.GetData()))
	}
}

func (f *fakeServer) WatchDocuments(r *quirev1.WatchDocumentsRequest, stream grpc.ServerStreamingServer[quirev1.WatchDocumentsResponse]) error {
	for {
		if err := stream.Send(&quirev1.WatchDocumentsResponse{Document: &quirev1.Document{CollectionId: r.GetCollectionId()}}); err != nil {
			return err
		}
		select {
		case <-stream.Context().Done():
			return nil
		case <-time.After(10 * time.Millisecond):
		}
	}
}

const fakeScenarios = `{
  "requires": ["PagesService.ReadPage"],
  "fixtures": ["site_url"],
  "scenarios": [
    {"name": "sync_accept", "vars": {"ns": "n-${run_id}", "ns2": "${ns}-2"}, "steps": [
      {"call": "PagesService.SyncPages", "key": "write",
       "stream": [{"start": {"namespace": "${ns2}", "url": "${site_url}/llms.txt", "validateDiscovery": true}}],
       "discovery_decision": true,
       "save": {"final": "last.report.namespace"},
       "expect": {"ok": {"messages": {"$contains": {"discoveryCheck": {"discovered": 4, "published": 0}}},
                         "count": 5, "cancelled": false,
                         "last": {"report": {"status": "SYNC_STATUS_COMPLETED", "namespace": "${ns}-2"}}}}},
      {"call": "PagesService.SyncPages", "key": "write",
       "stream": [{"start": {"namespace": "${final}", "url": "u"}}], "cancel_after": 1,
       "expect": {"ok": {"count": 1, "cancelled": true}}}
    ]},
    {"name": "sync_reject", "steps": [
      {"call": "PagesService.SyncPages", "key": "write",
       "stream": [{"start": {"namespace": "x", "url": "u", "validateDiscovery": true}}],
       "discovery_decision": false,
       "expect": {"error": {"grpc_code": "ABORTED", "error_code": "ERROR_CODE_DISCOVERY_REJECTED"}}}
    ]},
    {"name": "sync_unexpected_check_fails", "steps": [
      {"call": "PagesService.SyncPages", "key": "write",
       "stream": [{"start": {"namespace": "x", "url": "u", "validateDiscovery": true}}]}
    ]},
    {"name": "upload_chunked", "steps": [
      {"call": "KnowledgeService.UploadDocument", "key": "write",
       "stream": [{"metadata": {"collectionId": "c", "fileName": "big.txt"}},
                  {"data": {"$repeat": {"text": "abcdefghij", "times": 262144}}}],
       "expect": {"ok": {"document": {"sizeBytes": 2621440, "fileName": "big.txt"}}}}
    ]},
    {"name": "watch_collects", "steps": [
      {"call": "KnowledgeService.WatchDocuments", "key": "read", "request": {"collectionId": "c"},
       "collect": {"max_messages": 3, "timeout_ms": 5000},
       "expect": {"ok": {"count": 3, "cancelled": true, "last": {"document": {"collectionId": "c"}}}}},
      {"call": "KnowledgeService.WatchDocuments", "key": "read", "request": {"collectionId": "c"},
       "collect": {"timeout_ms": 100},
       "expect": {"ok": {"cancelled": true, "count": {"$gte": 1}}}}
    ]},
    {"name": "required_unimplemented_skips", "steps": [
      {"call": "PagesService.ReadPage", "key": "read", "request": {"namespace": "x", "path": "/a"}}
    ]},
    {"name": "unlisted_unimplemented_fails", "steps": [
      {"call": "PagesService.ListPages", "key": "read", "request": {"namespace": "x"}}
    ]},
    {"name": "missing_fixture_skips", "fixtures": ["nope"], "steps": []},
    {"name": "unknown_variable_fails", "steps": [
      {"call": "PagesService.ListPages", "key": "read", "request": {"namespace": "${nope}"}}
    ]}
  ]
}`

// runAll runs the scenarios and checks each one's status, and the reasons given.
func runAll(t *testing.T, r *runner, scenarios []*scenario, want, reasons map[string]string) {
	t.Helper()
	for _, sc := range scenarios {
		res := r.runScenario(sc, false)
		if res.status != want[sc.name] {
			t.Errorf("%s: %s %s (want %s)", sc.name, res.status, res.reason, want[sc.name])
		}
		if reason, ok := reasons[sc.name]; ok && !strings.Contains(res.reason, reason) {
			t.Errorf("%s: reason %q does not say %q", sc.name, res.reason, reason)
		}
	}
}

// serveFake serves services on an in-memory listener; the dialer connects to it.
func serveFake(t *testing.T, pages quirev1.PagesServiceServer, knowledge quirev1.KnowledgeServiceServer) func(context.Context, string) (net.Conn, error) {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	quirev1.RegisterPagesServiceServer(srv, pages)
	quirev1.RegisterKnowledgeServiceServer(srv, knowledge)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }
}

// fakeConn is the runner's raw connection to a fake server.
func fakeConn(t *testing.T, dialer func(context.Context, string) (net.Conn, error)) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient("passthrough:///bufnet", grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithContextDialer(dialer))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// loadText loads scenarios from one file's text.
func loadText(t *testing.T, text string) []*scenario {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "scenarios.json"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	scenarios, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return scenarios
}

func TestRunnerAgainstFakeServer(t *testing.T) {
	fake := &fakeServer{}
	conn := fakeConn(t, serveFake(t, fake, fake))
	scenarios := loadText(t, fakeScenarios)
	r := &runner{conn: conn, keys: map[string]string{"write": "tok-write", "read": "tok-read"},
		fixtures: map[string]any{"site_url": "http://127.0.0.1:1/v1"}}
	want := map[string]string{
		"sync_accept":                  "PASS",
		"sync_reject":                  "PASS",
		"sync_unexpected_check_fails":  "FAIL",
		"upload_chunked":               "PASS",
		"watch_collects":               "PASS",
		"required_unimplemented_skips": "SKIP",
		"unlisted_unimplemented_fails": "FAIL",
		"missing_fixture_skips":        "SKIP",
		"unknown_variable_fails":       "FAIL",
	}
	runAll(t, r, scenarios, want, map[string]string{
		"unknown_variable_fails":      "scenario error: unknown variable ${nope}",
		"sync_unexpected_check_fails": "unexpected discoveryCheck",
	})
	if len(fake.dataMessages) != 3 || fake.dataMessages[0] != 1024*1024 || fake.dataMessages[2] != 2621440-2*1024*1024 {
		t.Errorf("upload data messages: %v", fake.dataMessages)
	}
}
