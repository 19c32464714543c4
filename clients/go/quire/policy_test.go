package quire

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/quire/quire/clients/go/quirev1"
)

func TestRPCKindsCoverEveryMethod(t *testing.T) {
	services := []protoreflect.ServiceDescriptor{
		quirev1.File_quire_v1_pages_service_proto.Services().ByName("PagesService"),
		quirev1.File_quire_v1_knowledge_service_proto.Services().ByName("KnowledgeService"),
		quirev1.File_quire_v1_admin_service_proto.Services().ByName("AdminService"),
	}
	seen := 0
	for _, svc := range services {
		methods := svc.Methods()
		for i := 0; i < methods.Len(); i++ {
			m := methods.Get(i)
			seen++
			if _, ok := RPCKinds[string(m.Name())]; !ok {
				t.Errorf("%s has no CallKind", m.FullName())
			}
			streaming := m.IsStreamingClient() || m.IsStreamingServer()
			if streaming && IsIdempotent(string(m.Name())) {
				t.Errorf("stream %s must never be retried", m.Name())
			}
		}
	}
	if seen != len(RPCKinds) {
		t.Errorf("RPCKinds has %d entries for %d methods", len(RPCKinds), seen)
	}
}

func TestRetryClassification(t *testing.T) {
	idempotent := []string{"SearchPages", "ReadPage", "ListPages", "GrepPages", "RunCommand", "DescribeTools",
		"GetSyncReport", "ListNamespaces", "GetCollection", "ListCollections", "GetDocument", "ListDocuments",
		"GetAgent", "SearchKnowledge", "ReadDocument", "GetIndexStatus", "GetRetrievalPolicy", "GetGateStatus",
		"GetShadowReport"}
	never := []string{"SyncPages", "UploadDocument", "WatchDocuments", "WatchIndexStatus", "RunGate",
		"CreateCollection", "DeleteCollection", "DeleteDocument", "UpsertAgent", "SetRetrievalPolicy",
		"SetKillSwitch", "SetNamespaceSearchConfig", "RebuildIndex", "RollbackIndex", "CreateApiKey", "RevokeApiKey"}
	for _, rpc := range idempotent {
		if !IsIdempotent(rpc) {
			t.Errorf("%s should be retried", rpc)
		}
	}
	for _, rpc := range never {
		if IsIdempotent(rpc) {
			t.Errorf("%s must not be retried", rpc)
		}
	}
	if !IsRetryable(status.Error(codes.Unavailable, "")) {
		t.Error("UNAVAILABLE is retryable")
	}
	for _, c := range []codes.Code{codes.DeadlineExceeded, codes.Internal, codes.ResourceExhausted, codes.Aborted, codes.NotFound} {
		if IsRetryable(status.Error(c, "")) {
			t.Errorf("%v is not retryable", c)
		}
	}
}

func TestBackoff(t *testing.T) {
	p := DefaultRetryPolicy()
	if got := p.Backoff(1, 0, 0.999999); got > 200*time.Millisecond || got < 199*time.Millisecond {
		t.Errorf("attempt 1 ceiling: %v", got)
	}
	if got := p.Backoff(2, 0, 0.999999); got > 400*time.Millisecond || got < 399*time.Millisecond {
		t.Errorf("attempt 2 ceiling: %v", got)
	}
	if got := p.Backoff(10, 0, 0.999999); got > 2*time.Second || got < 1999*time.Millisecond {
		t.Errorf("capped: %v", got)
	}
	if got := p.Backoff(1, 0, 0); got != 0 {
		t.Errorf("full jitter starts at 0: %v", got)
	}
	if got := p.Backoff(1, 3*time.Second, 0.5); got != 3*time.Second {
		t.Errorf("retry_after is a lower bound: %v", got)
	}
	if got := (RetryPolicy{MaxAttempts: 1}).merged(); got.MaxAttempts != 1 || got.InitialBackoff != 200*time.Millisecond {
		t.Errorf("merged: %+v", got)
	}
}

func TestTimeoutsMerge(t *testing.T) {
	got := Timeouts{Read: 3 * time.Second, Watch: 0, Gate: NoDeadline}.merged()
	if got.Read != 3*time.Second || got.Search != 15*time.Second || got.Write != 30*time.Second ||
		got.Sync != 30*time.Minute || got.Upload != 10*time.Minute || got.Watch != NoDeadline || got.Gate != NoDeadline {
		t.Errorf("merged: %+v", got)
	}
}
