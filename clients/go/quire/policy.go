package quire

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
)

// CallKind groups the RPCs by default deadline. Its values (KindRead, ...), their String and
// RPCKinds, the kind of every RPC, are generated from the contract into contract_gen.go.
type CallKind int

// NoDeadline as a Timeouts field means calls of that kind get no default deadline.
const NoDeadline time.Duration = -1

// Timeouts is the default deadline per call kind, applied only when the call's context has
// no deadline of its own. A zero field keeps the built-in default (the contract's,
// `(quire.v1.call_kind).default_deadline`: the comment on each Kind); NoDeadline disables it.
type Timeouts struct {
	Read   time.Duration
	Search time.Duration
	Write  time.Duration
	Sync   time.Duration
	Upload time.Duration
	Watch  time.Duration // none by default: runs until the context is cancelled
	Gate   time.Duration
}

// DefaultTimeouts returns the built-in defaults, generated from the contract.
func DefaultTimeouts() Timeouts {
	return Timeouts{
		Read:   defaultDeadlines[KindRead],
		Search: defaultDeadlines[KindSearch],
		Write:  defaultDeadlines[KindWrite],
		Sync:   defaultDeadlines[KindSync],
		Upload: defaultDeadlines[KindUpload],
		Watch:  defaultDeadlines[KindWatch],
		Gate:   defaultDeadlines[KindGate],
	}
}

// merged fills zero fields of t from the defaults.
func (t Timeouts) merged() Timeouts {
	d := DefaultTimeouts()
	pick := func(v, def time.Duration) time.Duration {
		if v == 0 {
			return def
		}
		return v
	}
	return Timeouts{
		Read:   pick(t.Read, d.Read),
		Search: pick(t.Search, d.Search),
		Write:  pick(t.Write, d.Write),
		Sync:   pick(t.Sync, d.Sync),
		Upload: pick(t.Upload, d.Upload),
		Watch:  pick(t.Watch, d.Watch),
		Gate:   pick(t.Gate, d.Gate),
	}
}

// For returns the default deadline of a kind (NoDeadline when none).
func (t Timeouts) For(kind CallKind) time.Duration {
	switch kind {
	case KindRead:
		return t.Read
	case KindSearch:
		return t.Search
	case KindWrite:
		return t.Write
	case KindSync:
		return t.Sync
	case KindUpload:
		return t.Upload
	case KindWatch:
		return t.Watch
	case KindGate:
		return t.Gate
	}
	return NoDeadline
}

// IsIdempotent reports whether an RPC (bare name) is a unary read that may be retried: one
// the contract marks idempotency_level NO_SIDE_EFFECTS or IDEMPOTENT. Writes and streams
// never are.
func IsIdempotent(rpc string) bool { return idempotentRPCs[rpc] }

// IsRetryable reports whether a failed attempt may be retried: only gRPC UNAVAILABLE.
func IsRetryable(err error) bool {
	qe := FromError(err)
	return qe != nil && qe.GRPCCode == codes.Unavailable
}

// RetryPolicy is exponential backoff with full jitter for UNAVAILABLE on idempotent reads.
// After failed attempt n (1-based) the client waits a uniformly random time in
// [0, min(MaxBackoff, InitialBackoff·Multiplier^(n-1))], or the server's retry_after when
// longer. The call's deadline covers every attempt. Zero fields take the defaults;
// MaxAttempts 1 disables retries.
type RetryPolicy struct {
	MaxAttempts    int           // default 3
	InitialBackoff time.Duration // default 200 ms
	MaxBackoff     time.Duration // default 2 s
	Multiplier     float64       // default 2
}

// DefaultRetryPolicy returns the built-in policy.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 3, InitialBackoff: 200 * time.Millisecond, MaxBackoff: 2 * time.Second, Multiplier: 2}
}

func (p RetryPolicy) merged() RetryPolicy {
	d := DefaultRetryPolicy()
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = d.MaxAttempts
	}
	if p.InitialBackoff <= 0 {
		p.InitialBackoff = d.InitialBackoff
	}
	if p.MaxBackoff <= 0 {
		p.MaxBackoff = d.MaxBackoff
	}
	if p.Multiplier <= 0 {
		p.Multiplier = d.Multiplier
	}
	return p
}

// Backoff is the wait after failed attempt n (1-based); jitter is a number in [0, 1)
// (rand.Float64 in the client). retryAfter, when positive, is a lower bound.
func (p RetryPolicy) Backoff(failedAttempt int, retryAfter time.Duration, jitter float64) time.Duration {
	p = p.merged()
	ceiling := float64(p.InitialBackoff) * math.Pow(p.Multiplier, float64(failedAttempt-1))
	if ceiling > float64(p.MaxBackoff) {
		ceiling = float64(p.MaxBackoff)
	}
	wait := time.Duration(jitter * ceiling)
	if retryAfter > wait {
		wait = retryAfter
	}
	return wait
}

// withDeadline applies the kind's default deadline to a stream when ctx has none (unary calls
// get theirs from policyInterceptor).
func (c *Client) withDeadline(ctx context.Context, rpc string) (context.Context, context.CancelFunc) {
	return withDefaultDeadline(ctx, c.timeouts, rpc)
}

// withDefaultDeadline applies the kind's default deadline when ctx has none.
func withDefaultDeadline(ctx context.Context, timeouts Timeouts, rpc string) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	d := timeouts.For(RPCKinds[rpc])
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// unary runs one unary RPC and converts its failure to *Error. Its deadline and retries come
// from the client's policyInterceptor.
func unary[Req, Resp any](ctx context.Context, req Req,
	call func(context.Context, Req) (Resp, error)) (Resp, error) {
	resp, err := call(ctx, req)
	if err != nil {
		var zero Resp
		return zero, convert(err)
	}
	return resp, nil
}

// contractPrefix starts the method path of every quire.v1 RPC.
const contractPrefix = "/quire.v1."

// rpcOfMethod is the bare RPC name of a quire.v1 method path ("/quire.v1.PagesService/ReadPage"
// → "ReadPage"), or "" for other services (health checks, reflection).
func rpcOfMethod(method string) string {
	if !strings.HasPrefix(method, contractPrefix) {
		return ""
	}
	rpc := method[strings.LastIndexByte(method, '/')+1:]
	if _, ok := RPCKinds[rpc]; !ok {
		return ""
	}
	return rpc
}

// policyInterceptor gives every quire.v1 unary call its kind's default deadline (when ctx has
// none) and retries idempotent reads on UNAVAILABLE with exponential backoff and full jitter,
// all attempts within that one deadline. Other services' calls pass through untouched.
func policyInterceptor(timeouts Timeouts, retry RetryPolicy) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn,
		invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		rpc := rpcOfMethod(method)
		if rpc == "" {
			return invoker(ctx, method, req, reply, cc, opts...)
		}
		ctx, cancel := withDefaultDeadline(ctx, timeouts, rpc)
		defer cancel()
		attempts := 1
		if IsIdempotent(rpc) {
			attempts = retry.MaxAttempts
		}
		for attempt := 1; ; attempt++ {
			err := invoker(ctx, method, req, reply, cc, opts...)
			if err == nil {
				return nil
			}
			qe := FromError(err)
			if qe == nil || attempt >= attempts || !IsRetryable(qe) || ctx.Err() != nil {
				return err
			}
			retryAfter, _ := qe.RetryAfter()
			wait := retry.Backoff(attempt, retryAfter, rand.Float64())
			if deadline, ok := ctx.Deadline(); ok && time.Now().Add(wait).After(deadline) {
				return err
			}
			if !sleep(ctx, wait) {
				return err
			}
		}
	}
}

// sleep waits d, or less when ctx ends first (then it returns false).
func sleep(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}
