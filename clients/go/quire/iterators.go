package quire

import (
	"context"
	"iter"

	"google.golang.org/protobuf/proto"

	"github.com/quire/quire/clients/go/quirev1"
)

// Iterators over the list calls. They are Go 1.23 range-over-func iterators
// (iter.Seq2[*T, error]), like the client's streams: the module needs Go ≥ 1.26 anyway (the
// minimum of grpc-go 1.85), so no Next()/Err() type is needed.
//
//	for doc, err := range client.Documents(ctx, &quirev1.ListDocumentsRequest{CollectionId: cid}) {
//	    if err != nil { return err }
//	    ...
//	}
//
// Paged lists (documents, agents, pages) fetch a page only when the loop has used the
// previous one; each page is its own call with its own default deadline and retries. An error
// is yielded once as (nil, err) and ends the iteration. Unpaged lists (collections,
// namespaces) yield from their single response.

// pages follows next cursors: fetch returns one page's items and the cursor after it ("" at
// the end).
func pages[T any](fetch func(cursor string) ([]T, string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		cursor := ""
		for {
			items, next, err := fetch(cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range items {
				if !yield(item, nil) {
					return
				}
			}
			if next == "" {
				return
			}
			cursor = next
		}
	}
}

// single yields the items of one unpaged call.
func single[T any](list func() ([]T, error)) iter.Seq2[T, error] {
	return pages(func(string) ([]T, string, error) {
		items, err := list()
		return items, "", err
	})
}

// Collections iterates the organisation's non-deleted collections by name (one call).
func (c *Client) Collections(ctx context.Context) iter.Seq2[*quirev1.Collection, error] {
	return single(func() ([]*quirev1.Collection, error) { return c.ListCollections(ctx) })
}

// Namespaces iterates the organisation's namespaces (one call).
func (c *Client) Namespaces(ctx context.Context) iter.Seq2[*quirev1.Namespace, error] {
	return single(func() ([]*quirev1.Namespace, error) { return c.ListNamespaces(ctx) })
}

// Documents iterates a collection's documents, newest first, that match req.Filter (unset:
// all). req.Limit is the page size (0: the server default); req.Cursor, when set, is where
// to start. req is not modified.
func (c *Client) Documents(ctx context.Context, req *quirev1.ListDocumentsRequest) iter.Seq2[*quirev1.Document, error] {
	base := &quirev1.ListDocumentsRequest{}
	if req != nil {
		base = proto.Clone(req).(*quirev1.ListDocumentsRequest)
	}
	return pages(func(cursor string) ([]*quirev1.Document, string, error) {
		page := proto.Clone(base).(*quirev1.ListDocumentsRequest)
		if cursor != "" {
			page.Cursor = cursor
		}
		resp, err := c.ListDocuments(ctx, page)
		return resp.GetDocuments(), resp.GetNextCursor(), err
	})
}

// AllDocuments iterates every document of a collection (pageSize 0 = the server default);
// Documents also takes a filter.
func (c *Client) AllDocuments(ctx context.Context, collectionID string, pageSize uint32) iter.Seq2[*quirev1.Document, error] {
	return c.Documents(ctx, &quirev1.ListDocumentsRequest{CollectionId: collectionID, Limit: pageSize})
}

// Agents iterates the organisation's agents by id; pageSize 0 is the server default (100).
func (c *Client) Agents(ctx context.Context, pageSize uint32) iter.Seq2[*quirev1.Agent, error] {
	return pages(func(cursor string) ([]*quirev1.Agent, string, error) {
		resp, err := c.ListAgents(ctx, &quirev1.ListAgentsRequest{Cursor: cursor, Limit: pageSize})
		return resp.GetAgents(), resp.GetNextCursor(), err
	})
}

// Pages iterates a namespace's pages under req.Prefix in path order; req.Limit is the page
// size and req.Cursor is ignored (it starts at the first page). A publish during the
// iteration invalidates the cursor (restart_required): the iterator then lists again from the
// start and skips the paths it has already yielded, so every path comes at most once and in
// order, each as it was when its page was read.
func (c *Client) Pages(ctx context.Context, req *quirev1.ListPagesRequest) iter.Seq2[*quirev1.Page, error] {
	base := &quirev1.ListPagesRequest{}
	if req != nil {
		base = proto.Clone(req).(*quirev1.ListPagesRequest)
	}
	return func(yield func(*quirev1.Page, error) bool) {
		listing := proto.Clone(base).(*quirev1.ListPagesRequest)
		last, yielded, cursor := "", false, ""
		for {
			listing.Cursor = cursor
			page, err := c.ListPages(ctx, listing)
			if err != nil {
				yield(nil, err)
				return
			}
			if page.GetRestartRequired() {
				cursor = ""
				continue
			}
			for _, p := range page.GetPages() {
				// Paths come in byte order (COLLATE "C"), which Go's string comparison matches.
				if yielded && p.GetPath() <= last {
					continue
				}
				if !yield(p, nil) {
					return
				}
				last, yielded = p.GetPath(), true
			}
			if page.GetNextCursor() == "" {
				return
			}
			cursor = page.GetNextCursor()
		}
	}
}
