package main

// Client steps: `"client": "<helper>"` with `"args"` runs a helper of the quire package (not a
// raw call) and matches its result as JSON (tests/conformance/README.md, "Client steps").

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strconv"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/quire/quire/clients/go/quire"
	"github.com/quire/quire/clients/go/quirev1"
)

// helperCalls are the RPCs each helper calls: an UNIMPLEMENTED from a helper is a skip when
// the scenario's `requires` lists one of them (as in the Python reference runner).
var helperCalls = map[string][]string{
	"wait_until_searchable": {"KnowledgeService.GetDocument", "KnowledgeService.ListDocuments", "KnowledgeService.WatchDocuments"},
	"iterate": {"KnowledgeService.ListCollections", "KnowledgeService.ListDocuments", "KnowledgeService.ListAgents",
		"PagesService.ListNamespaces", "PagesService.ListPages"},
	"upload_documents": {"KnowledgeService.UploadDocuments"},
}

// stepCalls are the RPCs a step calls.
func stepCalls(step map[string]any) []string {
	if helper, ok := step["client"].(string); ok {
		return helperCalls[helper]
	}
	call, _ := step["call"].(string)
	return []string{call}
}

// invokeHelper runs a client step.
func (r *runner) invokeHelper(step map[string]any, env map[string]any) (*outcome, error) {
	helper, _ := step["client"].(string)
	if _, known := helperCalls[helper]; !known {
		return nil, scenarioErrorf("unknown client helper %q", helper)
	}
	raw, err := substitute(orEmpty(step["args"]), env)
	if err != nil {
		return nil, err
	}
	args, ok := raw.(map[string]any)
	if !ok {
		return nil, scenarioErrorf("client step %s: args is not an object", helper)
	}
	header, err := r.metadata(step, env)
	if err != nil {
		return nil, err
	}
	timeoutMS := float64(streamTimeoutMS)
	if v, ok := number(step["timeout_ms"]); ok {
		timeoutMS = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(timeoutMS*float64(time.Millisecond)))
	defer cancel()
	// The helpers' client sends no key of its own; each step's credential rides on ctx.
	ctx = metadata.NewOutgoingContext(ctx, header)

	var result any
	switch helper {
	case "wait_until_searchable":
		result, err = r.waitUntilSearchable(ctx, args)
	case "iterate":
		result, err = r.iterate(ctx, args)
	case "upload_documents":
		result, err = r.uploadDocuments(ctx, args)
	}
	var se *scenarioError
	if errors.As(err, &se) {
		return nil, err
	}
	if err != nil {
		return &outcome{err: helperError(err)}, nil
	}
	return &outcome{ok: result}, nil
}

// helperError is the callError of a helper's failure, including errors the client raised
// itself (bad input) whose ErrorDetail never crossed the wire.
func helperError(err error) *callError {
	qe := quire.FromError(err)
	if qe == nil {
		return callErrorOf(err)
	}
	ce := &callError{grpcCode: quire.CanonicalCodeName(qe.GRPCCode), errorCode: qe.Detail.GetCode().String(),
		detail: map[string]any{}, message: qe.Message}
	if j, jerr := toJSON(qe.Detail); jerr == nil {
		ce.detail = j
	}
	return ce
}

// waitOutcomeJSON is one outcome as the scenarios spell it.
type waitOutcomeJSON struct {
	DocumentID string `json:"documentId"`
	Outcome    string `json:"outcome"`
	Reason     string `json:"reason,omitempty"`
}

func (r *runner) waitUntilSearchable(ctx context.Context, args map[string]any) (any, error) {
	_, hasIDs := args["document_ids"]
	_, hasCollection := args["collection_id"]
	if hasIDs == hasCollection {
		return nil, scenarioErrorf("wait_until_searchable wants document_ids or collection_id")
	}
	var target quire.WaitTarget
	if ids, ok := args["document_ids"]; ok {
		list, ok := ids.([]any)
		if !ok {
			return nil, scenarioErrorf("wait_until_searchable: document_ids is not a list")
		}
		target.DocumentIDs = []string{}
		for _, id := range list {
			target.DocumentIDs = append(target.DocumentIDs, asText(id))
		}
	}
	if cid, ok := args["collection_id"]; ok {
		target.CollectionID = asText(cid)
	}
	timeout := 60 * time.Second
	if ms, ok := number(args["timeout_ms"]); ok {
		timeout = time.Duration(ms * float64(time.Millisecond))
	}
	res, err := r.client.WaitUntilSearchable(ctx, target, timeout)
	if err != nil {
		return nil, err
	}
	outcomes := make([]waitOutcomeJSON, 0, len(res.Outcomes))
	for _, o := range res.Outcomes {
		outcomes = append(outcomes, waitOutcomeJSON{DocumentID: o.DocumentID, Outcome: string(o.Outcome), Reason: o.Reason})
	}
	return asJSON(map[string]any{"outcomes": outcomes, "complete": res.Complete})
}

func (r *runner) iterate(ctx context.Context, args map[string]any) (any, error) {
	list, _ := args["list"].(string)
	request := orEmpty(args["request"])
	var pageSize uint32
	if n, ok := number(args["page_size"]); ok {
		pageSize = uint32(n)
	}
	var items []any
	var err error
	switch list {
	case "collections":
		items, err = collectJSON(r.client.Collections(ctx))
	case "namespaces":
		items, err = collectJSON(r.client.Namespaces(ctx))
	case "agents":
		items, err = collectJSON(r.client.Agents(ctx, pageSize))
	case "documents":
		req := &quirev1.ListDocumentsRequest{}
		if err := parseInto(req, request); err != nil {
			return nil, err
		}
		req.Limit = pageSize
		items, err = collectJSON(r.client.Documents(ctx, req))
	case "pages":
		req := &quirev1.ListPagesRequest{}
		if err := parseInto(req, request); err != nil {
			return nil, err
		}
		req.Limit = pageSize
		items, err = collectJSON(r.client.Pages(ctx, req))
	default:
		return nil, scenarioErrorf("iterate: unknown list %q", list)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"items": items, "count": json.Number(strconv.Itoa(len(items)))}, nil
}

// collectJSON drains an iterator into proto3 JSON values.
func collectJSON[T proto.Message](seq iter.Seq2[T, error]) ([]any, error) {
	items := []any{}
	for item, err := range seq {
		if err != nil {
			return nil, err
		}
		j, err := toJSON(item)
		if err != nil {
			return nil, err
		}
		items = append(items, j)
	}
	return items, nil
}

// parseInto fills m from a request body in proto3 JSON (after the value operators).
func parseInto(m proto.Message, body any) error {
	parsed, err := parse(m.ProtoReflect().Descriptor(), body)
	if err != nil {
		return err
	}
	proto.Merge(m, parsed)
	return nil
}

func (r *runner) uploadDocuments(ctx context.Context, args map[string]any) (any, error) {
	list, ok := args["documents"].([]any)
	if !ok {
		return nil, scenarioErrorf("upload_documents: documents is not a list")
	}
	items := make([]quire.UploadItem, 0, len(list))
	for _, raw := range list {
		d, ok := raw.(map[string]any)
		if !ok {
			return nil, scenarioErrorf("upload_documents: a document is not an object")
		}
		item := quire.UploadItem{FileName: asString(d["fileName"]), Data: []byte(asString(d["text"])),
			ExternalKey: asString(d["externalKey"]), MimeType: asString(d["mimeType"])}
		if meta, ok := d["metadata"]; ok {
			m, ok := plainJSON(meta).(map[string]any)
			if !ok {
				return nil, scenarioErrorf("upload_documents: metadata is not an object")
			}
			item.Metadata = m
		}
		items = append(items, item)
	}
	resp, err := r.client.UploadDocuments(ctx, asText(args["collection_id"]), items)
	if err != nil {
		return nil, err
	}
	return toJSON(resp)
}

// asString is a JSON string's value, "" for anything else (an absent field).
func asString(v any) string {
	s, _ := v.(string)
	return s
}

// plainJSON turns the decoder's json.Number into float64, the numbers structpb takes.
func plainJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			out[k] = plainJSON(item)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = plainJSON(item)
		}
		return out
	}
	return v
}

// asJSON round-trips a Go value through JSON so it compares like a decoded response.
func asJSON(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeJSON(data)
}
