// Package quire is the Go client of Quire, a gRPC knowledge retrieval service.
//
//	client, err := quire.Dial(ctx, "127.0.0.1:50051", quire.WithInsecure(), quire.WithAPIKey(key))
//	if err != nil { ... }
//	defer client.Close()
//	result, err := client.SearchPages(ctx, &quirev1.SearchPagesRequest{Namespace: "docs", Query: "revision"})
//
// Every method takes a context.Context first and returns the result message of quire.v1 with
// the response wrapper removed. Every failure is a *Error (see errors.Is with ErrPageChanged
// etc., IsCode, ToToolError). When ctx has no deadline the call gets its kind's default
// (reads 10 s, searches 15 s, writes 30 s, sync 30 min, upload 10 min, watches none). Idempotent
// unary reads are retried on UNAVAILABLE with exponential backoff and full jitter (3 attempts).
// Streams and the list iterators (Collections, Documents, Agents, Namespaces, Pages) are Go 1.23
// iterators (iter.Seq2[T, error]). Helpers: UploadDocuments and UploadFolder (batches),
// WaitUntilSearchable, and the metadata filter builders (Eq, AnyOf, Range, TimeRange, Exists,
// Missing, All, Any, Not).
package quire

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/quire/quire/clients/go/quirev1"
)

// APIKeyEnv is the environment variable read when no WithAPIKey option is given.
const APIKeyEnv = "QUIRE_API_KEY"

// UserAgent is sent as the gRPC user agent prefix.
const UserAgent = "quire-client-go/0.1.0"

// maxMessageBytes bounds messages both ways (results are bounded far below).
const maxMessageBytes = 16 * 1024 * 1024

// Client is a connection to a Quire server. It is safe for concurrent use; Close it when done.
type Client struct {
	conn      *grpc.ClientConn
	pages     quirev1.PagesServiceClient
	knowledge quirev1.KnowledgeServiceClient
	admin     quirev1.AdminServiceClient
	timeouts  Timeouts // stream deadlines; unary calls get theirs from policyInterceptor
	tokens    *ConsistencyTokens
}

// Consistency returns the client's consistency tokens: Current to hand the highest seen to
// another process, Advance to take one over.
func (c *Client) Consistency() *ConsistencyTokens { return c.tokens }

type settings struct {
	apiKey      *string
	tlsConfig   *tls.Config
	insecure    bool
	timeouts    Timeouts
	retry       RetryPolicy
	block       bool
	dialOptions []grpc.DialOption
	// looseReads turns session consistency off (WithSessionConsistency(false)).
	looseReads bool
}

// Option configures Dial.
type Option func(*settings)

// WithAPIKey sends `authorization: Bearer <key>` on every call. Without it the key comes from
// $QUIRE_API_KEY; an empty key sends no authorization header.
func WithAPIKey(key string) Option { return func(s *settings) { s.apiKey = &key } }

// WithTLS connects with TLS using cfg (nil: the system roots). Add client certificates to cfg
// for mutual TLS. TLS with the system roots is the default when neither WithTLS nor
// WithInsecure is given.
func WithTLS(cfg *tls.Config) Option {
	return func(s *settings) {
		if cfg == nil {
			cfg = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		s.tlsConfig, s.insecure = cfg, false
	}
}

// WithInsecure connects in plaintext (e.g. a local `quire up` on 127.0.0.1:50051).
func WithInsecure() Option { return func(s *settings) { s.insecure, s.tlsConfig = true, nil } }

// WithDefaultTimeouts changes the default deadline per call kind (zero fields keep the
// built-in default, NoDeadline removes it). A deadline on the call's context always wins.
func WithDefaultTimeouts(t Timeouts) Option { return func(s *settings) { s.timeouts = t } }

// WithRetry changes the retry policy of idempotent reads; RetryPolicy{MaxAttempts: 1}
// disables retries.
func WithRetry(p RetryPolicy) Option { return func(s *settings) { s.retry = p } }

// WithSessionConsistency(false) stops sending the highest consistency token seen with reads
// (see ConsistencyTokens): against a server with read replicas, reads then go to any healthy
// replica, possibly a little behind this client's own writes. On by default.
func WithSessionConsistency(on bool) Option { return func(s *settings) { s.looseReads = !on } }

// WithBlock makes Dial wait until the connection is ready (or ctx ends). By default Dial
// returns at once and connects on the first call.
func WithBlock() Option { return func(s *settings) { s.block = true } }

// WithDialOptions appends raw grpc.DialOptions (interceptors, keepalive, a custom dialer...).
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(s *settings) { s.dialOptions = append(s.dialOptions, opts...) }
}

// Dial creates a client for target ("host:port", or any gRPC target such as "dns:///host:443").
// ctx only bounds the wait of WithBlock.
func Dial(ctx context.Context, target string, opts ...Option) (*Client, error) {
	s := settings{}
	for _, opt := range opts {
		opt(&s)
	}
	key := os.Getenv(APIKeyEnv)
	if s.apiKey != nil {
		key = *s.apiKey
	}
	var transport credentials.TransportCredentials
	if s.insecure {
		transport = insecure.NewCredentials()
	} else {
		cfg := s.tlsConfig
		if cfg == nil {
			cfg = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		transport = credentials.NewTLS(cfg)
	}
	dialOpts := []grpc.DialOption{
		grpc.WithTransportCredentials(transport),
		grpc.WithUserAgent(UserAgent),
		grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(maxMessageBytes),
			grpc.MaxCallSendMsgSize(maxMessageBytes),
		),
	}
	if key != "" {
		dialOpts = append(dialOpts, grpc.WithPerRPCCredentials(bearer{key: key}))
	}
	timeouts, retry := s.timeouts.merged(), s.retry.merged()
	tokens := &ConsistencyTokens{enabled: !s.looseReads}
	// Outermost of the chain: deadlines and retries wrap any interceptor given by WithDialOptions;
	// each attempt of a read carries the consistency token.
	dialOpts = append(dialOpts,
		grpc.WithChainUnaryInterceptor(policyInterceptor(timeouts, retry), consistencyInterceptor(tokens)),
		grpc.WithChainStreamInterceptor(consistencyStreamInterceptor(tokens)))
	dialOpts = append(dialOpts, s.dialOptions...)
	conn, err := grpc.NewClient(target, dialOpts...)
	if err != nil {
		return nil, fmt.Errorf("quire: dial %s: %w", target, err)
	}
	c := &Client{
		conn:      conn,
		pages:     quirev1.NewPagesServiceClient(conn),
		knowledge: quirev1.NewKnowledgeServiceClient(conn),
		admin:     quirev1.NewAdminServiceClient(conn),
		timeouts:  timeouts,
		tokens:    tokens,
	}
	if s.block {
		if err := waitReady(ctx, conn); err != nil {
			_ = conn.Close()
			return nil, fmt.Errorf("quire: dial %s: %w", target, err)
		}
	}
	return c, nil
}

func waitReady(ctx context.Context, conn *grpc.ClientConn) error {
	conn.Connect()
	for {
		state := conn.GetState()
		if state == connectivity.Ready {
			return nil
		}
		if state == connectivity.Shutdown {
			return errors.New("connection shut down")
		}
		if !conn.WaitForStateChange(ctx, state) {
			return ctx.Err()
		}
	}
}

// Close closes the connection; calls in flight fail.
func (c *Client) Close() error { return c.conn.Close() }

// Conn is the underlying connection (e.g. for grpc.health.v1 or reflection).
func (c *Client) Conn() *grpc.ClientConn { return c.conn }

// bearer is the per-RPC credential sending the API key.
type bearer struct{ key string }

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + b.key}, nil
}

// RequireTransportSecurity is false so that WithInsecure works with a key (local servers);
// with TLS the key is only ever sent over TLS.
func (b bearer) RequireTransportSecurity() bool { return false }
