package quire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/quire/quire/clients/go/quirev1"
)

// fake is an in-process Quire server whose behaviour each test sets.
type fake struct {
	quirev1.UnimplementedPagesServiceServer
	quirev1.UnimplementedKnowledgeServiceServer
	quirev1.UnimplementedAdminServiceServer

	mu        sync.Mutex
	calls     map[string]int
	auth      []string
	deadlines map[string]time.Duration
	failures  map[string][]error // popped per call
	upload    [][]byte           // data messages received
	meta      *quirev1.UploadMetadata
	sync      func(grpc.BidiStreamingServer[quirev1.SyncPagesRequest, quirev1.SyncPagesResponse]) error
}

func (f *fake) record(ctx context.Context, rpc string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[rpc]++
	md, _ := metadata.FromIncomingContext(ctx)
	f.auth = append(f.auth, md.Get("authorization")...)
	if dl, ok := ctx.Deadline(); ok {
		f.deadlines[rpc] = time.Until(dl)
	} else {
		f.deadlines[rpc] = -1
	}
	if errs := f.failures[rpc]; len(errs) > 0 {
		f.failures[rpc] = errs[1:]
		return errs[0]
	}
	return nil
}

func (f *fake) count(rpc string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[rpc]
}

func (f *fake) SearchPages(ctx context.Context, r *quirev1.SearchPagesRequest) (*quirev1.SearchPagesResponse, error) {
	if err := f.record(ctx, "SearchPages"); err != nil {
		return nil, err
	}
	return &quirev1.SearchPagesResponse{Result: &quirev1.SearchResult{SchemaVersion: 1, Query: r.GetQuery()}}, nil
}

func (f *fake) ReadPage(ctx context.Context, r *quirev1.ReadPageRequest) (*quirev1.ReadPageResponse, error) {
	if err := f.record(ctx, "ReadPage"); err != nil {
		return nil, err
	}
	return &quirev1.ReadPageResponse{PageRead: &quirev1.PageRead{Content: "hello"}}, nil
}

func (f *fake) ListCollections(ctx context.Context, _ *quirev1.ListCollectionsRequest) (*quirev1.ListCollectionsResponse, error) {
	if err := f.record(ctx, "ListCollections"); err != nil {
		return nil, err
	}
	return &quirev1.ListCollectionsResponse{Collections: []*quirev1.Collection{{Name: "a"}, {Name: "b"}}}, nil
}

func (f *fake) CreateCollection(ctx context.Context, r *quirev1.CreateCollectionRequest) (*quirev1.CreateCollectionResponse, error) {
	if err := f.record(ctx, "CreateCollection"); err != nil {
		return nil, err
	}
	return &quirev1.CreateCollectionResponse{Collection: &quirev1.Collection{Name: r.GetName()}}, nil
}

func (f *fake) UploadDocument(stream grpc.ClientStreamingServer[quirev1.UploadDocumentRequest, quirev1.UploadDocumentResponse]) error {
	if err := f.record(stream.Context(), "UploadDocument"); err != nil {
		return err
	}
	var total uint64
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return stream.SendAndClose(&quirev1.UploadDocumentResponse{Document: &quirev1.Document{
				FileName: f.meta.GetFileName(), SizeBytes: total,
			}})
		}
		if err != nil {
			return err
		}
		f.mu.Lock()
		if m := msg.GetMetadata(); m != nil {
			if f.meta != nil {
				f.mu.Unlock()
				return status.Error(codes.InvalidArgument, "metadata twice")
			}
			f.meta = m
		} else {
			if f.meta == nil {
				f.mu.Unlock()
				return status.Error(codes.InvalidArgument, "data before metadata")
			}
			f.upload = append(f.upload, msg.GetData())
			total += uint64(len(msg.GetData()))
		}
		f.mu.Unlock()
	}
}

func (f *fake) SyncPages(stream grpc.BidiStreamingServer[quirev1.SyncPagesRequest, quirev1.SyncPagesResponse]) error {
	if err := f.record(stream.Context(), "SyncPages"); err != nil {
		return err
	}
	return f.sync(stream)
}

func (f *fake) WatchDocuments(r *quirev1.WatchDocumentsRequest, stream grpc.ServerStreamingServer[quirev1.WatchDocumentsResponse]) error {
	if err := f.record(stream.Context(), "WatchDocuments"); err != nil {
		return err
	}
	for i := 0; ; i++ {
		if err := stream.Send(&quirev1.WatchDocumentsResponse{Document: &quirev1.Document{CollectionId: r.GetCollectionId(), Attempts: uint32(i)}}); err != nil {
			return err
		}
		select {
		case <-stream.Context().Done():
			return stream.Context().Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func startFake(t *testing.T, opts ...Option) (*fake, *Client) {
	t.Helper()
	f := &fake{calls: map[string]int{}, deadlines: map[string]time.Duration{}, failures: map[string][]error{}}
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	quirev1.RegisterPagesServiceServer(srv, f)
	quirev1.RegisterKnowledgeServiceServer(srv, f)
	quirev1.RegisterAdminServiceServer(srv, f)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	dialer := grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) })
	base := []Option{WithInsecure(), WithDialOptions(dialer), WithRetry(RetryPolicy{InitialBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond})}
	client, err := Dial(context.Background(), "passthrough:///bufnet", append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return f, client
}

func unavailable() error { return status.Error(codes.Unavailable, "database down") }

func TestRetriesIdempotentReadsOnUnavailable(t *testing.T) {
	f, client := startFake(t)
	f.failures["SearchPages"] = []error{unavailable(), unavailable()}
	result, err := client.SearchPages(context.Background(), &quirev1.SearchPagesRequest{Namespace: "docs", Query: "q"})
	if err != nil || result.GetQuery() != "q" {
		t.Fatalf("SearchPages: %v %v", result, err)
	}
	if got := f.count("SearchPages"); got != 3 {
		t.Fatalf("SearchPages attempts: %d", got)
	}

	f.failures["ReadPage"] = []error{unavailable(), unavailable(), unavailable(), unavailable()}
	_, err = client.ReadPage(context.Background(), &quirev1.ReadPageRequest{Namespace: "docs", Path: "/a.md"})
	if !errors.Is(err, ErrUnavailable) || f.count("ReadPage") != 3 {
		t.Fatalf("ReadPage: %v after %d attempts", err, f.count("ReadPage"))
	}
}

func TestNoRetryForWritesOrOtherCodes(t *testing.T) {
	f, client := startFake(t)
	f.failures["CreateCollection"] = []error{unavailable()}
	if _, err := client.CreateCollection(context.Background(), "c"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("CreateCollection: %v", err)
	}
	if got := f.count("CreateCollection"); got != 1 {
		t.Fatalf("a write was retried: %d attempts", got)
	}
	f.failures["ListCollections"] = []error{status.Error(codes.Internal, "bug")}
	if _, err := client.ListCollections(context.Background()); !errors.Is(err, ErrInternal) {
		t.Fatalf("ListCollections: %v", err)
	}
	if got := f.count("ListCollections"); got != 1 {
		t.Fatalf("INTERNAL was retried: %d attempts", got)
	}
}

func TestRetryDisabledAndDeadlineCoversAttempts(t *testing.T) {
	f, client := startFake(t, WithRetry(RetryPolicy{MaxAttempts: 1}))
	f.failures["ListCollections"] = []error{unavailable()}
	if _, err := client.ListCollections(context.Background()); !errors.Is(err, ErrUnavailable) || f.count("ListCollections") != 1 {
		t.Fatalf("MaxAttempts 1: %v, %d attempts", err, f.count("ListCollections"))
	}

	f2, client2 := startFake(t)
	st, _ := status.New(codes.Unavailable, "busy").WithDetails(&quirev1.ErrorDetail{
		Code: quirev1.ErrorCode_ERROR_CODE_UNAVAILABLE, RetryAfter: durationpb.New(time.Minute),
	})
	f2.failures["ListCollections"] = []error{st.Err()}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	started := time.Now()
	_, err := client2.ListCollections(ctx)
	if !errors.Is(err, ErrUnavailable) || time.Since(started) > time.Second || f2.count("ListCollections") != 1 {
		t.Fatalf("a retry_after past the deadline must fail at once: %v after %v", err, time.Since(started))
	}
	if d, ok := FromError(err).RetryAfter(); !ok || d != time.Minute {
		t.Fatalf("retry_after lost: %v", d)
	}
}

func TestDefaultDeadlinesPerKind(t *testing.T) {
	f, client := startFake(t, WithDefaultTimeouts(Timeouts{Write: 7 * time.Second}))
	ctx := context.Background()
	if _, err := client.ListCollections(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := client.SearchPages(ctx, &quirev1.SearchPagesRequest{Namespace: "d", Query: "q"}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CreateCollection(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := client.UploadDocument(ctx, &quirev1.UploadMetadata{FileName: "a.txt"}, bytes.NewReader(nil)); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := client.ReadPage(short, &quirev1.ReadPageRequest{Namespace: "d", Path: "/x"}); err != nil {
		t.Fatal(err)
	}
	watch, stop := context.WithCancel(ctx)
	for range client.WatchDocuments(watch, "c") {
		break
	}
	stop()
	within := func(rpc string, want time.Duration) {
		t.Helper()
		f.mu.Lock()
		got := f.deadlines[rpc]
		f.mu.Unlock()
		if want < 0 {
			if got != -1 {
				t.Errorf("%s: expected no deadline, got %v", rpc, got)
			}
			return
		}
		if got > want || got < want-2*time.Second {
			t.Errorf("%s: deadline %v, want about %v", rpc, got, want)
		}
	}
	within("ListCollections", 10*time.Second)
	within("SearchPages", 15*time.Second)
	within("CreateCollection", 7*time.Second)
	within("UploadDocument", 10*time.Minute)
	within("ReadPage", 2*time.Second)
	within("WatchDocuments", -1)
}

func TestBearerAuth(t *testing.T) {
	f, client := startFake(t, WithAPIKey("qk_test"))
	if _, err := client.ListCollections(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(f.auth) != 1 || f.auth[0] != "Bearer qk_test" {
		t.Fatalf("authorization: %v", f.auth)
	}

	t.Setenv(APIKeyEnv, "qk_env")
	f2, client2 := startFake(t)
	if _, err := client2.ListCollections(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(f2.auth) != 1 || f2.auth[0] != "Bearer qk_env" {
		t.Fatalf("authorization from env: %v", f2.auth)
	}

	f3, client3 := startFake(t, WithAPIKey(""))
	if _, err := client3.ListCollections(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(f3.auth) != 0 {
		t.Fatalf("an empty key must send no header: %v", f3.auth)
	}
}

func TestUploadChunking(t *testing.T) {
	var sent []*quirev1.UploadDocumentRequest
	collect := func(m *quirev1.UploadDocumentRequest) error { sent = append(sent, m); return nil }
	data := bytes.Repeat([]byte("0123456789"), 262144) // 2.5 MiB
	meta := &quirev1.UploadMetadata{CollectionId: "c", FileName: "big.txt"}
	// A reader returning short reads must still give exact 1 MiB messages.
	if err := sendUpload(meta, iotest.HalfReader(bytes.NewReader(data)), ChunkSize, collect); err != nil {
		t.Fatal(err)
	}
	if len(sent) != 4 || sent[0].GetMetadata().GetFileName() != "big.txt" {
		t.Fatalf("messages: %d", len(sent))
	}
	sizes := []int{len(sent[1].GetData()), len(sent[2].GetData()), len(sent[3].GetData())}
	if sizes[0] != ChunkSize || sizes[1] != ChunkSize || sizes[2] != len(data)-2*ChunkSize {
		t.Fatalf("chunk sizes: %v", sizes)
	}
	var joined []byte
	for _, m := range sent[1:] {
		joined = append(joined, m.GetData()...)
	}
	if !bytes.Equal(joined, data) {
		t.Fatal("data changed in transit")
	}

	sent = nil
	if err := sendUpload(meta, bytes.NewReader(bytes.Repeat([]byte{1}, ChunkSize)), ChunkSize, collect); err != nil || len(sent) != 2 {
		t.Fatalf("exactly 1 MiB: %d messages, %v", len(sent), err)
	}
	sent = nil
	if err := sendUpload(meta, bytes.NewReader(nil), ChunkSize, collect); err != nil || len(sent) != 1 {
		t.Fatalf("empty: %d messages, %v", len(sent), err)
	}
	readErr := errors.New("disk on fire")
	if err := sendUpload(meta, iotest.ErrReader(readErr), ChunkSize, collect); !errors.Is(err, readErr) {
		t.Fatalf("reader error: %v", err)
	}
}

func TestUploadDocumentOverTheWire(t *testing.T) {
	f, client := startFake(t)
	data := bytes.Repeat([]byte("x"), 2*ChunkSize+10)
	doc, err := client.UploadDocument(context.Background(), &quirev1.UploadMetadata{CollectionId: "c", FileName: "notes.txt"}, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if doc.GetSizeBytes() != uint64(len(data)) || doc.GetFileName() != "notes.txt" || len(f.upload) != 3 {
		t.Fatalf("document %v after %d data messages", doc, len(f.upload))
	}
	f.failures["UploadDocument"] = []error{unavailable()}
	if _, err := client.UploadDocument(context.Background(), &quirev1.UploadMetadata{FileName: "x"}, bytes.NewReader(data)); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("upload error: %v", err)
	}
	if f.count("UploadDocument") != 2 {
		t.Fatalf("uploads must never be retried: %d", f.count("UploadDocument"))
	}
}

// syncServer answers a start with progress, a DiscoveryCheck (when asked), then the report;
// it records whether the client half-closed before the server ended the call.
func syncServer(halfClosedEarly *atomic.Bool) func(grpc.BidiStreamingServer[quirev1.SyncPagesRequest, quirev1.SyncPagesResponse]) error {
	return func(stream grpc.BidiStreamingServer[quirev1.SyncPagesRequest, quirev1.SyncPagesResponse]) error {
		first, err := stream.Recv()
		if err != nil {
			return err
		}
		start := first.GetStart()
		_ = stream.Send(&quirev1.SyncPagesResponse{Message: &quirev1.SyncPagesResponse_Progress{Progress: &quirev1.PageSyncProgress{Stage: quirev1.SyncStage_SYNC_STAGE_DISCOVERING}}})
		if start.GetValidateDiscovery() {
			_ = stream.Send(&quirev1.SyncPagesResponse{Message: &quirev1.SyncPagesResponse_DiscoveryCheck{DiscoveryCheck: &quirev1.DiscoveryCheck{Discovered: 4}}})
			answer, err := stream.Recv()
			if err != nil {
				return status.Error(codes.Aborted, "no decision")
			}
			if !answer.GetDecision().GetAccept() {
				st, _ := status.New(codes.Aborted, "rejected").WithDetails(&quirev1.ErrorDetail{Code: quirev1.ErrorCode_ERROR_CODE_DISCOVERY_REJECTED})
				return st.Err()
			}
		}
		next := make(chan error, 1)
		go func() { _, err := stream.Recv(); next <- err }()
		select {
		case err := <-next:
			if errors.Is(err, io.EOF) {
				halfClosedEarly.Store(true)
			}
		case <-time.After(100 * time.Millisecond):
		}
		return stream.Send(&quirev1.SyncPagesResponse{Message: &quirev1.SyncPagesResponse_Report{Report: &quirev1.SyncReport{
			Namespace: start.GetNamespace(), Status: quirev1.SyncStatus_SYNC_STATUS_COMPLETED, Discovered: 4,
		}}})
	}
}

func TestSyncPagesDiscoveryAccept(t *testing.T) {
	f, client := startFake(t)
	var early atomic.Bool
	f.sync = syncServer(&early)
	var checked *quirev1.DiscoveryCheck
	var kinds []string
	for msg, err := range client.SyncPages(context.Background(), &quirev1.SyncStart{Namespace: "docs", Url: "https://x/llms.txt"},
		WithValidateDiscovery(func(c *quirev1.DiscoveryCheck) bool { checked = c; return true })) {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case msg.GetProgress() != nil:
			kinds = append(kinds, "progress")
		case msg.GetDiscoveryCheck() != nil:
			kinds = append(kinds, "check")
		case msg.GetReport() != nil:
			kinds = append(kinds, "report")
		}
	}
	if checked.GetDiscovered() != 4 || len(kinds) != 3 || kinds[2] != "report" {
		t.Fatalf("check %v, messages %v", checked, kinds)
	}
	if early.Load() {
		t.Fatal("the client half-closed the request side before the server ended the call")
	}
	if f.deadlines["SyncPages"] < 29*time.Minute {
		t.Fatalf("sync deadline %v", f.deadlines["SyncPages"])
	}
}

func TestSyncPagesDiscoveryAbortAndReport(t *testing.T) {
	f, client := startFake(t)
	var early atomic.Bool
	f.sync = syncServer(&early)
	_, err := client.SyncPagesReport(context.Background(), &quirev1.SyncStart{Namespace: "docs"}, nil,
		WithValidateDiscovery(func(*quirev1.DiscoveryCheck) bool { return false }))
	if !errors.Is(err, ErrDiscoveryRejected) || FromError(err).GRPCCode != codes.Aborted {
		t.Fatalf("abort: %v", err)
	}
	report, err := client.SyncPagesReport(context.Background(), &quirev1.SyncStart{Namespace: "docs"}, nil)
	if err != nil || report.GetStatus() != quirev1.SyncStatus_SYNC_STATUS_COMPLETED || report.GetNamespace() != "docs" {
		t.Fatalf("report: %v %v", report, err)
	}
}

func TestStreamErrorsAreQuireErrors(t *testing.T) {
	f, client := startFake(t)
	f.failures["WatchDocuments"] = []error{status.Error(codes.NotFound, "")}
	for _, err := range client.WatchDocuments(context.Background(), "c") {
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("watch error: %v", err)
		}
	}
	_, err := client.GetAgent(context.Background(), "a")
	if !errors.Is(err, ErrUnimplemented) {
		t.Fatalf("unimplemented: %v", err)
	}
}
