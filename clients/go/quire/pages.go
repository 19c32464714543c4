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

// DiscoveryValidator decides, after discovery and before any fetch, whether a sync goes on:
// true accepts, false aborts (the call then fails with ErrDiscoveryRejected and stored state
// is untouched).
type DiscoveryValidator func(*quirev1.DiscoveryCheck) bool

type syncSettings struct {
	validate DiscoveryValidator
}

// SyncOption configures SyncPages.
type SyncOption func(*syncSettings)

// WithValidateDiscovery asks the server to pause after discovery with a DiscoveryCheck and
// lets fn accept or abort. It sets SyncStart.validate_discovery.
func WithValidateDiscovery(fn DiscoveryValidator) SyncOption {
	return func(s *syncSettings) { s.validate = fn }
}

// SyncPages synchronises a site into a namespace. The iterator yields every server message:
// PageSyncProgress messages, the DiscoveryCheck (already answered with the validator's
// decision) and finally exactly one SyncReport (GetReport() != nil). On failure it yields
// (nil, *Error) and stops. The request side stays open until the server ends the call;
// breaking out of the loop (or cancelling ctx) cancels the RPC, which the server treats as a
// cooperative stop. Default deadline: 30 min for the whole stream.
//
// When start.ValidateDiscovery is set without WithValidateDiscovery, the check is accepted.
func (c *Client) SyncPages(ctx context.Context, start *quirev1.SyncStart, opts ...SyncOption) iter.Seq2[*quirev1.SyncPagesResponse, error] {
	var s syncSettings
	for _, opt := range opts {
		opt(&s)
	}
	first := proto.Clone(start).(*quirev1.SyncStart)
	if s.validate != nil {
		first.ValidateDiscovery = true
	}
	return func(yield func(*quirev1.SyncPagesResponse, error) bool) {
		ctx, cancel := c.withDeadline(ctx, "SyncPages")
		defer cancel()
		stream, err := c.pages.SyncPages(ctx)
		if err != nil {
			yield(nil, convert(err))
			return
		}
		if err := stream.Send(&quirev1.SyncPagesRequest{Message: &quirev1.SyncPagesRequest_Start{Start: first}}); err != nil {
			// The server ended the call; its status is what RecvMsg reports.
			if !errors.Is(err, io.EOF) {
				yield(nil, convert(err))
				return
			}
		}
		for {
			msg, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(nil, convert(err))
				return
			}
			if check := msg.GetDiscoveryCheck(); check != nil {
				accept := true
				if s.validate != nil {
					accept = s.validate(check)
				}
				decision := &quirev1.SyncPagesRequest{Message: &quirev1.SyncPagesRequest_Decision{
					Decision: &quirev1.DiscoveryDecision{Accept: accept},
				}}
				if err := stream.Send(decision); err != nil && !errors.Is(err, io.EOF) {
					yield(nil, convert(err))
					return
				}
			}
			if !yield(msg, nil) {
				return
			}
		}
	}
}

// SyncPagesReport runs SyncPages to its end and returns the SyncReport. progress, when not
// nil, sees every message before the report.
func (c *Client) SyncPagesReport(ctx context.Context, start *quirev1.SyncStart, progress func(*quirev1.SyncPagesResponse), opts ...SyncOption) (*quirev1.SyncReport, error) {
	for msg, err := range c.SyncPages(ctx, start, opts...) {
		if err != nil {
			return nil, err
		}
		if report := msg.GetReport(); report != nil {
			return report, nil
		}
		if progress != nil {
			progress(msg)
		}
	}
	return nil, &Error{
		Code:    quirev1.ErrorCode_ERROR_CODE_SYNC_FAILED,
		Message: "the sync ended without a report",
		Detail:  &quirev1.ErrorDetail{Code: quirev1.ErrorCode_ERROR_CODE_SYNC_FAILED, Message: "the sync ended without a report"},
	}
}

// SearchPages runs a hybrid search (query + up to 3 alternatives); req.Config (planner
// settings) needs a key with scope `tune`.
func (c *Client) SearchPages(ctx context.Context, req *quirev1.SearchPagesRequest) (*quirev1.SearchResult, error) {
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.SearchPagesRequest) (*quirev1.SearchPagesResponse, error) {
		return c.pages.SearchPages(ctx, r)
	})
	return resp.GetResult(), err
}

// ReadPage reads a slice of a page; a stale pinned req.Revision fails with ErrPageChanged and
// (*Error).CurrentRevision().
func (c *Client) ReadPage(ctx context.Context, req *quirev1.ReadPageRequest) (*quirev1.PageRead, error) {
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.ReadPageRequest) (*quirev1.ReadPageResponse, error) {
		return c.pages.ReadPage(ctx, r)
	})
	return resp.GetPageRead(), err
}

// ListPages returns one page of the listing; check RestartRequired when passing a cursor.
func (c *Client) ListPages(ctx context.Context, req *quirev1.ListPagesRequest) (*quirev1.PageList, error) {
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.ListPagesRequest) (*quirev1.ListPagesResponse, error) {
		return c.pages.ListPages(ctx, r)
	})
	return resp.GetPageList(), err
}

// GrepPages is a literal substring search; Complete=false means absence cannot be concluded.
func (c *Client) GrepPages(ctx context.Context, req *quirev1.GrepPagesRequest) (*quirev1.GrepResult, error) {
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.GrepPagesRequest) (*quirev1.GrepPagesResponse, error) {
		return c.pages.GrepPages(ctx, r)
	})
	return resp.GetResult(), err
}

// RunCommand runs one bounded read-only command (ls, tree, find, cat, head, tail, wc, grep,
// rg) over a namespace. Grammar errors come back in the result, not as errors.
func (c *Client) RunCommand(ctx context.Context, req *quirev1.RunCommandRequest) (*quirev1.CommandResult, error) {
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.RunCommandRequest) (*quirev1.RunCommandResponse, error) {
		return c.pages.RunCommand(ctx, r)
	})
	return resp.GetResult(), err
}

// ToolBinding binds the pages tools to a namespace and the knowledge tools to an agent: their
// schemas then leave `namespace` (`agent_id`) out. Empty fields bind nothing.
type ToolBinding struct {
	Namespace string
	AgentID   string
}

// DescribeTools returns the agent tools with this key's bounds: JSON Schema and the MCP, OpenAI
// and Anthropic shapes; an optional ToolBinding binds them (docs/agents.md).
func (c *Client) DescribeTools(ctx context.Context, binding ...ToolBinding) ([]*quirev1.ToolDefinition, error) {
	req := &quirev1.DescribeToolsRequest{}
	if len(binding) > 0 {
		req.Namespace, req.AgentId = binding[0].Namespace, binding[0].AgentID
	}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.DescribeToolsRequest) (*quirev1.DescribeToolsResponse, error) {
		return c.pages.DescribeTools(ctx, r)
	})
	return resp.GetTools(), err
}

// GetSyncReport returns the last stored SyncReport of a namespace.
func (c *Client) GetSyncReport(ctx context.Context, namespace string) (*quirev1.SyncReport, error) {
	req := &quirev1.GetSyncReportRequest{Namespace: namespace}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.GetSyncReportRequest) (*quirev1.GetSyncReportResponse, error) {
		return c.pages.GetSyncReport(ctx, r)
	})
	return resp.GetReport(), err
}

// ListNamespaces returns the namespaces of the caller's organisation.
func (c *Client) ListNamespaces(ctx context.Context) ([]*quirev1.Namespace, error) {
	resp, err := unary(ctx, &quirev1.ListNamespacesRequest{}, func(ctx context.Context, r *quirev1.ListNamespacesRequest) (*quirev1.ListNamespacesResponse, error) {
		return c.pages.ListNamespaces(ctx, r)
	})
	return resp.GetNamespaces(), err
}

// serverStream turns a server-streaming call into an iterator of unwrapped messages.
func serverStream[Req, Resp, T any](ctx context.Context, c *Client, rpc string, req Req,
	open func(context.Context, Req) (grpc.ServerStreamingClient[Resp], error),
	unwrap func(*Resp) T) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		ctx, cancel := c.withDeadline(ctx, rpc)
		defer cancel()
		stream, err := open(ctx, req)
		if err != nil {
			yield(zero, convert(err))
			return
		}
		for {
			msg, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(zero, convert(err))
				return
			}
			if !yield(unwrap(msg), nil) {
				return
			}
		}
	}
}
