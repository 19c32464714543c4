package quire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// ConsistencyTokenKey is the metadata key of a consistency token.
//
// A Quire server with read replicas answers every write with it (the primary's WAL position
// after the write, e.g. "0/16B3748"), and serves a read sent with one only from a database
// node that has caught up to it. Mirrors the Python client's consistency.py and the
// TypeScript client's consistency.ts.
const ConsistencyTokenKey = "quire-consistency-token"

var tokenPattern = regexp.MustCompile(`^([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})$`)

// ParseConsistencyToken returns a token's WAL position, to compare tokens.
func ParseConsistencyToken(token string) (uint64, error) {
	m := tokenPattern.FindStringSubmatch(strings.TrimSpace(token))
	if m == nil {
		return 0, fmt.Errorf("quire: not a consistency token: %.40q", token)
	}
	high, _ := strconv.ParseUint(m[1], 16, 32)
	low, _ := strconv.ParseUint(m[2], 16, 32)
	return high<<32 | low, nil
}

// ConsistencyTokens holds the highest consistency token a client has seen. The client sends it
// with every read (session consistency: it reads its own writes), unless it was dialled with
// WithSessionConsistency(false). Safe for concurrent use.
type ConsistencyTokens struct {
	enabled  bool
	mu       sync.Mutex
	token    string
	position uint64
}

// Enabled reports whether tokens are kept and sent.
func (t *ConsistencyTokens) Enabled() bool { return t.enabled }

// Current returns the highest token seen (or taken over), "" before any: hand it to another
// process, which passes it to Advance.
func (t *ConsistencyTokens) Current() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.token
}

// Advance takes token if it is past the current one; an error if it is not a token.
func (t *ConsistencyTokens) Advance(token string) error {
	position, err := ParseConsistencyToken(token)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.token == "" || position > t.position {
		t.token, t.position = strings.TrimSpace(token), position
	}
	return nil
}

// observe takes the token of a response's metadata; a malformed one is ignored (a server bug
// must not fail the caller's call).
func (t *ConsistencyTokens) observe(md metadata.MD) {
	if !t.enabled {
		return
	}
	for _, v := range md.Get(ConsistencyTokenKey) {
		t.observeToken(v)
	}
}

// observeToken takes a token a message carried (WatchDocumentsResponse.ConsistencyToken); an
// empty one (a server without replicas) or a malformed one is ignored.
func (t *ConsistencyTokens) observeToken(token string) {
	if !t.enabled || token == "" {
		return
	}
	_ = t.Advance(token)
}

// outgoing adds the current token to a read's context.
func (t *ConsistencyTokens) outgoing(ctx context.Context, rpc string) context.Context {
	if !t.enabled || !IsIdempotent(rpc) {
		return ctx
	}
	if token := t.Current(); token != "" {
		return metadata.AppendToOutgoingContext(ctx, ConsistencyTokenKey, token)
	}
	return ctx
}

// consistencyInterceptor sends the token with unary reads and keeps every unary response's.
func consistencyInterceptor(tokens *ConsistencyTokens) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn,
		invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		rpc := rpcOfMethod(method)
		if rpc == "" || !tokens.enabled {
			return invoker(ctx, method, req, reply, cc, opts...)
		}
		var trailer metadata.MD
		err := invoker(tokens.outgoing(ctx, rpc), method, req, reply, cc, append(opts, grpc.Trailer(&trailer))...)
		if err == nil {
			tokens.observe(trailer)
		}
		return err
	}
}

// consistencyStreamInterceptor keeps the token of a stream (a sync, an upload, a gate run)
// once it has ended successfully.
func consistencyStreamInterceptor(tokens *ConsistencyTokens) grpc.StreamClientInterceptor {
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string,
		streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		stream, err := streamer(ctx, desc, cc, method, opts...)
		if err != nil || rpcOfMethod(method) == "" || !tokens.enabled {
			return stream, err
		}
		return &observedStream{ClientStream: stream, tokens: tokens, oneResponse: !desc.ServerStreams}, nil
	}
}

type observedStream struct {
	grpc.ClientStream
	tokens      *ConsistencyTokens
	oneResponse bool
}

func (s *observedStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	// A client stream's one response comes with its status; a server stream ends with EOF.
	if (err == nil && s.oneResponse) || errors.Is(err, io.EOF) {
		s.tokens.observe(s.ClientStream.Trailer())
	}
	return err
}
