package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/quire/quire/clients/go/quire"
	"github.com/quire/quire/clients/go/quirev1"
)

const (
	chunk            = 1024 * 1024
	defaultTimeoutMS = 30_000
	streamTimeoutMS  = 300_000
)

var services = map[string]protoreflect.ServiceDescriptor{
	"PagesService":     quirev1.File_quire_v1_pages_service_proto.Services().ByName("PagesService"),
	"KnowledgeService": quirev1.File_quire_v1_knowledge_service_proto.Services().ByName("KnowledgeService"),
	"AdminService":     quirev1.File_quire_v1_admin_service_proto.Services().ByName("AdminService"),
}

type runner struct {
	conn     *grpc.ClientConn
	client   *quire.Client // for client steps; sends no key of its own
	keys     map[string]string
	fixtures map[string]any
}

// outcome is a unary response JSON / a stream's {"messages","last","count","cancelled"}, or
// an error.
type outcome struct {
	ok  any
	err *callError
}

type callError struct {
	grpcCode  string // canonical name, e.g. NOT_FOUND
	errorCode string // ErrorDetail.code name, ERROR_CODE_UNSPECIFIED without detail
	detail    any    // ErrorDetail JSON ({} without detail)
	message   string
}

func method(call string) (protoreflect.MethodDescriptor, error) {
	var svc, rpc string
	for i := 0; i < len(call); i++ {
		if call[i] == '.' {
			svc, rpc = call[:i], call[i+1:]
			break
		}
	}
	sd, ok := services[svc]
	if !ok || rpc == "" {
		return nil, scenarioErrorf("unknown call %q (want Service.Rpc)", call)
	}
	md := sd.Methods().ByName(protoreflect.Name(rpc))
	if md == nil {
		return nil, scenarioErrorf("unknown call %q (want Service.Rpc)", call)
	}
	return md, nil
}

func newMessage(desc protoreflect.MessageDescriptor) proto.Message {
	if mt, err := protoregistry.GlobalTypes.FindMessageByName(desc.FullName()); err == nil {
		return mt.New().Interface()
	}
	return dynamicpb.NewMessage(desc)
}

// toJSON is the canonical proto3 JSON with default-valued fields omitted, decoded.
func toJSON(m proto.Message) (any, error) {
	data, err := protojson.Marshal(m)
	if err != nil {
		return nil, err
	}
	return decodeJSON(data)
}

func parse(desc protoreflect.MessageDescriptor, body any) (proto.Message, error) {
	expanded, err := expandValues(body)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(expanded)
	if err != nil {
		return nil, scenarioErrorf("bad request JSON for %s: %v", desc.FullName(), err)
	}
	m := newMessage(desc)
	if err := protojson.Unmarshal(data, m); err != nil {
		return nil, scenarioErrorf("bad request JSON for %s: %v", desc.FullName(), err)
	}
	return m, nil
}

// splitData sends data messages over 1 MiB as consecutive 1 MiB messages.
func splitData(messages []proto.Message) []proto.Message {
	var out []proto.Message
	for _, m := range messages {
		r := m.ProtoReflect()
		fd := r.Descriptor().Fields().ByName("data")
		if fd == nil || fd.Kind() != protoreflect.BytesKind || !r.Has(fd) || len(r.Get(fd).Bytes()) <= chunk {
			out = append(out, m)
			continue
		}
		data := r.Get(fd).Bytes()
		for i := 0; i < len(data); i += chunk {
			end := min(i+chunk, len(data))
			piece := r.New()
			piece.Set(fd, protoreflect.ValueOfBytes(append([]byte(nil), data[i:end]...)))
			out = append(out, piece.Interface())
		}
	}
	return out
}

func (r *runner) metadata(step map[string]any, env map[string]any) (metadata.MD, error) {
	if bearer, ok := step["bearer"]; ok {
		token, err := substitute(bearer, env)
		if err != nil {
			return nil, err
		}
		return metadata.Pairs("authorization", "Bearer "+asText(token)), nil
	}
	keyValue, ok := step["key"]
	if !ok {
		return nil, scenarioErrorf("step has neither key nor bearer")
	}
	key, _ := keyValue.(string)
	if key == "none" {
		return metadata.MD{}, nil
	}
	token, ok := r.keys[key]
	if !ok {
		return nil, scenarioErrorf("unknown key %q", key)
	}
	return metadata.Pairs("authorization", "Bearer "+token), nil
}

func callErrorOf(err error) *callError {
	st, ok := status.FromError(err)
	if !ok {
		st = status.FromContextError(err)
	}
	ce := &callError{grpcCode: quire.CanonicalCodeName(st.Code()), errorCode: "ERROR_CODE_UNSPECIFIED",
		detail: map[string]any{}, message: st.Message()}
	if detail := quire.ErrorDetailOf(st); detail != nil {
		if j, err := toJSON(detail); err == nil {
			ce.detail = j
			if m, ok := j.(map[string]any); ok {
				if code, ok := m["code"].(string); ok {
					ce.errorCode = code
				}
			}
		}
	}
	return ce
}

// invoke runs one step's call. A non-nil error is a scenario error or a step failure.
func (r *runner) invoke(step map[string]any, env map[string]any) (*outcome, error) {
	if _, ok := step["client"]; ok {
		return r.invokeHelper(step, env)
	}
	call, _ := step["call"].(string)
	md, err := method(call)
	if err != nil {
		return nil, err
	}
	fullMethod := fmt.Sprintf("/%s/%s", md.Parent().FullName(), md.Name())
	header, err := r.metadata(step, env)
	if err != nil {
		return nil, err
	}
	streaming := md.IsStreamingClient() || md.IsStreamingServer()
	timeoutMS := float64(defaultTimeoutMS)
	if streaming {
		timeoutMS = streamTimeoutMS
	}
	if v, ok := number(step["timeout_ms"]); ok {
		timeoutMS = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(timeoutMS*float64(time.Millisecond)))
	defer cancel()
	ctx = metadata.NewOutgoingContext(ctx, header)

	requestBody := func() (proto.Message, error) {
		body, err := substitute(orEmpty(step["request"]), env)
		if err != nil {
			return nil, err
		}
		return parse(md.Input(), body)
	}
	streamBodies := func() ([]proto.Message, error) {
		raw, err := substitute(step["stream"], env)
		if err != nil {
			return nil, err
		}
		list, ok := raw.([]any)
		if !ok {
			return nil, scenarioErrorf("%s needs a \"stream\" list", call)
		}
		var out []proto.Message
		for _, item := range list {
			m, err := parse(md.Input(), item)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		return splitData(out), nil
	}

	if !streaming {
		req, err := requestBody()
		if err != nil {
			return nil, err
		}
		resp := newMessage(md.Output())
		if err := r.conn.Invoke(ctx, fullMethod, req, resp); err != nil {
			return &outcome{err: callErrorOf(err)}, nil
		}
		j, err := toJSON(resp)
		return &outcome{ok: j}, err
	}

	desc := &grpc.StreamDesc{StreamName: string(md.Name()), ClientStreams: md.IsStreamingClient(), ServerStreams: md.IsStreamingServer()}
	var messages []proto.Message
	if md.IsStreamingClient() {
		if messages, err = streamBodies(); err != nil {
			return nil, err
		}
	} else {
		req, err := requestBody()
		if err != nil {
			return nil, err
		}
		messages = []proto.Message{req}
	}
	streamCtx, stop := context.WithCancel(ctx)
	defer stop()
	stream, err := r.conn.NewStream(streamCtx, desc, fullMethod)
	if err != nil {
		return &outcome{err: callErrorOf(err)}, nil
	}
	for _, m := range messages {
		if err := stream.SendMsg(m); err != nil {
			if errors.Is(err, io.EOF) {
				break // the server ended the call; RecvMsg reports its status
			}
			return &outcome{err: callErrorOf(err)}, nil
		}
	}
	if md.IsStreamingClient() && !md.IsStreamingServer() {
		// Client stream: the request side closes after the last message; the server answers then.
		if err := stream.CloseSend(); err != nil {
			return &outcome{err: callErrorOf(err)}, nil
		}
		resp := newMessage(md.Output())
		if err := stream.RecvMsg(resp); err != nil {
			return &outcome{err: callErrorOf(err)}, nil
		}
		j, err := toJSON(resp)
		return &outcome{ok: j}, err
	}
	if !md.IsStreamingClient() {
		if err := stream.CloseSend(); err != nil {
			return &outcome{err: callErrorOf(err)}, nil
		}
	}
	// Bidi: the request side stays open until the server ends the call.
	return r.collect(stream, stop, step, md)
}

// collect reads a response stream; answers discovery checks; stops per collect/cancel_after.
func (r *runner) collect(stream grpc.ClientStream, stop context.CancelFunc, step map[string]any, md protoreflect.MethodDescriptor) (*outcome, error) {
	collectSpec, _ := step["collect"].(map[string]any)
	maxMessages, hasMax := number(collectSpec["max_messages"])
	cancelAfter, hasCancelAfter := number(step["cancel_after"])
	limitMS, hasLimit := number(collectSpec["timeout_ms"])
	if hasLimit {
		timer := time.AfterFunc(time.Duration(limitMS*float64(time.Millisecond)), stop)
		defer timer.Stop()
	}
	messages := []any{}
	cancelled := false
	for {
		resp := newMessage(md.Output())
		err := stream.RecvMsg(resp)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// A cancellation caused by the runner (collect timeout) is not an error.
			if hasLimit && status.Code(err) == codes.Canceled {
				cancelled = true
				break
			}
			return &outcome{err: callErrorOf(err)}, nil
		}
		body, err := toJSON(resp)
		if err != nil {
			return nil, err
		}
		messages = append(messages, body)
		if m, ok := body.(map[string]any); ok {
			if _, isCheck := m["discoveryCheck"]; isCheck {
				decision, ok := step["discovery_decision"]
				if !ok || !md.IsStreamingClient() {
					return nil, &stepFailed{"unexpected discoveryCheck (no discovery_decision)"}
				}
				answer, err := parse(md.Input(), map[string]any{"decision": map[string]any{"accept": truthy(decision)}})
				if err != nil {
					return nil, err
				}
				if err := stream.SendMsg(answer); err != nil && !errors.Is(err, io.EOF) {
					return &outcome{err: callErrorOf(err)}, nil
				}
			}
		}
		if hasCancelAfter && float64(len(messages)) >= cancelAfter {
			stop()
			cancelled = true
			break
		}
		if hasMax && float64(len(messages)) >= maxMessages {
			stop()
			cancelled = true
			break
		}
	}
	var last any = map[string]any{}
	if len(messages) > 0 {
		last = messages[len(messages)-1]
	}
	return &outcome{ok: map[string]any{
		"messages":  messages,
		"last":      last,
		"count":     json.Number(fmt.Sprint(len(messages))),
		"cancelled": cancelled,
	}}, nil
}
