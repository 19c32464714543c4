package quire

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/test/bufconn"

	"github.com/quire/quire/clients/go/quirev1"
)

// tokenServer answers writes and uploads with a token in the trailers and records the token
// each read sent ("" for none).
type tokenServer struct {
	quirev1.UnimplementedKnowledgeServiceServer
	token string
	mu    sync.Mutex
	sent  []string
}

func (s *tokenServer) UpsertAgent(ctx context.Context, r *quirev1.UpsertAgentRequest) (*quirev1.UpsertAgentResponse, error) {
	_ = grpc.SetTrailer(ctx, metadata.Pairs(ConsistencyTokenKey, s.token))
	return &quirev1.UpsertAgentResponse{Agent: &quirev1.Agent{AgentId: r.GetAgentId()}}, nil
}

func (s *tokenServer) GetAgent(ctx context.Context, r *quirev1.GetAgentRequest) (*quirev1.GetAgentResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	s.mu.Lock()
	s.sent = append(s.sent, strings.Join(md.Get(ConsistencyTokenKey), ","))
	s.mu.Unlock()
	return &quirev1.GetAgentResponse{Agent: &quirev1.Agent{AgentId: r.GetAgentId()}}, nil
}

func (s *tokenServer) UploadDocument(stream grpc.ClientStreamingServer[quirev1.UploadDocumentRequest, quirev1.UploadDocumentResponse]) error {
	for {
		if _, err := stream.Recv(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return err
		}
	}
	stream.SetTrailer(metadata.Pairs(ConsistencyTokenKey, "0/FFF"))
	return stream.SendAndClose(&quirev1.UploadDocumentResponse{Document: &quirev1.Document{}})
}

func (s *tokenServer) reads() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.sent...)
}

func startTokenServer(t *testing.T, token string, opts ...Option) (*tokenServer, *Client) {
	t.Helper()
	s := &tokenServer{token: token}
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	quirev1.RegisterKnowledgeServiceServer(srv, s)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	dialer := grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) })
	client, err := Dial(context.Background(), "passthrough:///bufnet", append([]Option{WithInsecure(), WithDialOptions(dialer)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return s, client
}

func TestConsistencyTokensKeepTheHighest(t *testing.T) {
	tokens := &ConsistencyTokens{enabled: true}
	for _, token := range []string{"0/16B3748", "0/16B0000", "1/0", "0/FFFFFFFF"} {
		if err := tokens.Advance(token); err != nil {
			t.Fatal(err)
		}
	}
	if got := tokens.Current(); got != "1/0" {
		t.Fatalf("current %q, want 1/0 (compared as positions, not text)", got)
	}
	if p, _ := ParseConsistencyToken("FFFFFFFF/FFFFFFFF"); p != ^uint64(0) {
		t.Fatalf("largest token: %x", p)
	}
	for _, bad := range []string{"", "16B3748", "0/", "x/1", "0/123456789"} {
		if err := tokens.Advance(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	tokens.observe(metadata.Pairs(ConsistencyTokenKey, "garbage"))
	if tokens.Current() != "1/0" {
		t.Fatal("a malformed token in a response changed the current one")
	}
}

func TestAWatchMessageTokenIsKept(t *testing.T) {
	tokens := &ConsistencyTokens{enabled: true}
	tokens.observeToken("")
	tokens.observeToken("garbage")
	if got := tokens.Current(); got != "" {
		t.Fatalf("an empty or malformed message token was kept: %q", got)
	}
	tokens.observeToken("0/16B3748")
	tokens.observeToken("0/16B0000")
	if got := tokens.Current(); got != "0/16B3748" {
		t.Fatalf("current %q, want the highest message token", got)
	}
	off := &ConsistencyTokens{enabled: false}
	off.observeToken("0/16B3748")
	if got := off.Current(); got != "" {
		t.Fatalf("session consistency off kept %q", got)
	}
}

func TestAWriteTokenIsSentWithTheNextRead(t *testing.T) {
	s, client := startTokenServer(t, "0/3000060")
	ctx := context.Background()
	if _, err := client.GetAgent(ctx, "bot"); err != nil {
		t.Fatal(err)
	}
	if _, err := client.UpsertAgent(ctx, &quirev1.UpsertAgentRequest{AgentId: "bot"}); err != nil {
		t.Fatal(err)
	}
	if got := client.Consistency().Current(); got != "0/3000060" {
		t.Fatalf("token after the write: %q", got)
	}
	if _, err := client.GetAgent(ctx, "bot"); err != nil {
		t.Fatal(err)
	}
	if got := s.reads(); len(got) != 2 || got[0] != "" || got[1] != "0/3000060" {
		t.Fatalf("tokens the reads sent: %q", got)
	}
}

func TestAnUploadHandsItsTokenOver(t *testing.T) {
	_, client := startTokenServer(t, "0/1")
	_, err := client.UploadDocument(context.Background(), &quirev1.UploadMetadata{CollectionId: "c", FileName: "a.txt"}, strings.NewReader("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if got := client.Consistency().Current(); got != "0/FFF" {
		t.Fatalf("token after the upload: %q", got)
	}
}

func TestATokenFromAnotherProcessIsSent(t *testing.T) {
	s, client := startTokenServer(t, "0/1")
	if err := client.Consistency().Advance("5/0"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, _ = client.UpsertAgent(ctx, &quirev1.UpsertAgentRequest{AgentId: "bot"}) // 0/1: older
	_, _ = client.GetAgent(ctx, "bot")
	if got := s.reads(); len(got) != 1 || got[0] != "5/0" {
		t.Fatalf("tokens the reads sent: %q", got)
	}
}

func TestSessionConsistencyOff(t *testing.T) {
	s, client := startTokenServer(t, "0/9", WithSessionConsistency(false))
	ctx := context.Background()
	_, _ = client.UpsertAgent(ctx, &quirev1.UpsertAgentRequest{AgentId: "bot"})
	_, _ = client.GetAgent(ctx, "bot")
	if client.Consistency().Enabled() || client.Consistency().Current() != "" {
		t.Fatal("tokens kept with session consistency off")
	}
	if got := s.reads(); len(got) != 1 || got[0] != "" {
		t.Fatalf("tokens the reads sent: %q", got)
	}
}
