package quire_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/quire/quire/clients/go/quire"
	"github.com/quire/quire/clients/go/quirev1"
)

// Integration tests against a live server. They run when QUIRE_CONFORMANCE_ADDRESS and
// QUIRE_CONFORMANCE_KEYS are set, e.g. under the conformance harness:
//
//	.venv/bin/python -m tests.conformance.harness -- sh -c 'cd clients/go && go test ./...'

func live(t *testing.T, key string) *quire.Client {
	t.Helper()
	address := os.Getenv("QUIRE_CONFORMANCE_ADDRESS")
	raw := os.Getenv("QUIRE_CONFORMANCE_KEYS")
	if address == "" || raw == "" {
		t.Skip("integration test skipped: QUIRE_CONFORMANCE_ADDRESS / QUIRE_CONFORMANCE_KEYS are not set " +
			"(run under `python -m tests.conformance.harness -- ...`)")
	}
	keys := map[string]string{}
	if err := json.Unmarshal([]byte(raw), &keys); err != nil {
		t.Fatalf("QUIRE_CONFORMANCE_KEYS: %v", err)
	}
	token, ok := keys[key]
	if !ok {
		t.Fatalf("no key %q in QUIRE_CONFORMANCE_KEYS", key)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client, err := quire.Dial(ctx, address, quire.WithInsecure(), quire.WithAPIKey(token), quire.WithBlock())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return client
}

func suffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func TestIntegrationCollections(t *testing.T) {
	write := live(t, "write")
	ctx := context.Background()
	name := "go-client-" + suffix()
	created, err := write.CreateCollection(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if created.GetName() != name || created.GetCollectionId() == "" || created.GetSchemaVersion() != 1 {
		t.Fatalf("created: %v", created)
	}
	_, err = write.CreateCollection(ctx, name)
	if !errors.Is(err, quire.ErrAlreadyExists) {
		t.Fatalf("duplicate name: %v", err)
	}
	got, err := write.GetCollection(ctx, created.GetCollectionId())
	if err != nil || got.GetName() != name {
		t.Fatalf("get: %v %v", got, err)
	}
	all, err := write.ListCollections(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range all {
		found = found || c.GetCollectionId() == created.GetCollectionId()
	}
	if !found {
		t.Fatal("ListCollections misses the new collection")
	}
	other := live(t, "other_org_read")
	if _, err := other.GetCollection(ctx, created.GetCollectionId()); !errors.Is(err, quire.ErrCollectionNotFound) {
		t.Fatalf("another organisation must see NOT_FOUND: %v", err)
	}
	if _, err := write.DeleteCollection(ctx, created.GetCollectionId()); err != nil {
		t.Fatal(err)
	}
	_, err = write.GetCollection(ctx, created.GetCollectionId())
	var qe *quire.Error
	if !errors.As(err, &qe) || qe.Code != quirev1.ErrorCode_ERROR_CODE_COLLECTION_NOT_FOUND || qe.GRPCCode != codes.NotFound {
		t.Fatalf("deleted: %v", err)
	}
	if got := quire.ToToolError(err); got != `{"schema_version":1,"error":"collection_not_found","message":"Collection not found"}` {
		t.Fatalf("tool error: %s", got)
	}
}

func TestIntegrationAuthErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := live(t, "invalid").ListCollections(ctx); !errors.Is(err, quire.ErrUnauthenticated) {
		t.Fatalf("invalid key: %v", err)
	}
	if _, err := live(t, "read").CreateCollection(ctx, "nope-"+suffix()); !errors.Is(err, quire.ErrPermissionDenied) {
		t.Fatalf("read key writing: %v", err)
	}
	// SyncPages checks the scope before anything else.
	_, err := live(t, "read").SyncPagesReport(ctx, &quirev1.SyncStart{Namespace: "denied-" + suffix(), Url: "https://example.invalid/llms.txt"}, nil)
	if !errors.Is(err, quire.ErrPermissionDenied) {
		t.Fatalf("read key syncing: %v", err)
	}
}

func TestIntegrationAdmin(t *testing.T) {
	admin := live(t, "admin")
	ctx := context.Background()
	workers := int32(2000)
	_, err := admin.SetNamespaceSearchConfig(ctx, &quirev1.SetNamespaceSearchConfigRequest{
		Namespace: "docs", Config: &quirev1.PageSearchConfig{MaxParallelWorkersPerGather: &workers},
	})
	qe := quire.FromError(err)
	if qe == nil || !errors.Is(err, quire.ErrInvalidRequest) || len(qe.FieldViolations()) != 1 ||
		qe.FieldViolations()[0].GetField() != "config.max_parallel_workers_per_gather" {
		t.Fatalf("field violations: %v", err)
	}
	policy, err := admin.GetRetrievalPolicy(ctx)
	if err != nil || policy.GetSchemaVersion() != 1 {
		t.Fatalf("policy: %v %v", policy, err)
	}
	key, err := admin.CreateAPIKey(ctx, quirev1.Scope_SCOPE_READ)
	if err != nil || key.GetSecret() == "" {
		t.Fatalf("create key: %v %v", key, err)
	}
	if err := admin.RevokeAPIKey(ctx, key.GetKeyId()); err != nil {
		t.Fatal(err)
	}
	if _, err := live(t, "read").ListNamespaces(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestIntegrationUploadAndSearch(t *testing.T) {
	write := live(t, "write")
	ctx := context.Background()
	collection, err := write.CreateCollection(ctx, "go-upload-"+suffix())
	if err != nil {
		t.Fatal(err)
	}
	doc, err := write.UploadDocument(ctx, &quirev1.UploadMetadata{CollectionId: collection.GetCollectionId(), FileName: "notes.txt"},
		strings.NewReader(strings.Repeat("quince marmalade recipe\n", 100000)))
	if err != nil {
		t.Fatal(err)
	}
	if doc.GetSizeBytes() != uint64(len("quince marmalade recipe\n")*100000) {
		t.Fatalf("size: %d", doc.GetSizeBytes())
	}
	found, err := write.SearchKnowledge(ctx, &quirev1.SearchKnowledgeRequest{CollectionIds: []string{collection.GetCollectionId()}, Query: ""})
	if err != nil || len(found.GetHits()) != 0 {
		t.Fatalf("blank query: %v %v", found, err)
	}
}

// TestIntegrationFolderKeysAndWait uploads a folder twice (the second run changes nothing, by
// the relative-path keys), waits until its documents are searchable, then finds them by key
// and by a metadata filter.
func TestIntegrationFolderKeysAndWait(t *testing.T) {
	write := live(t, "write")
	ctx := context.Background()
	collection, err := write.CreateCollection(ctx, "go-folder-"+suffix())
	if err != nil {
		t.Fatal(err)
	}
	cid := collection.GetCollectionId()
	dir := t.TempDir()
	for rel, text := range map[string]string{"a.txt": "quince marmalade recipe", "guide/b.md": "# Damson jam\nboil the damsons"} {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := quire.FolderOptions{Metadata: func(rel string) map[string]any {
		return map[string]any{"section": strings.SplitN(rel, "/", 2)[0]}
	}}
	first, err := write.UploadFolder(ctx, cid, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	var docs []*quirev1.Document
	for _, r := range first {
		if r.Err != nil || r.Outcome != quirev1.UploadOutcome_UPLOAD_OUTCOME_CREATED || r.Document.GetExternalKey() != r.Path {
			t.Fatalf("first run, %s: %+v", r.Path, r)
		}
		docs = append(docs, r.Document)
	}
	again, err := write.UploadFolder(ctx, cid, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range again {
		if r.Err != nil || r.Outcome != quirev1.UploadOutcome_UPLOAD_OUTCOME_UNCHANGED || r.Document.GetDocumentId() != docs[i].GetDocumentId() {
			t.Fatalf("second run, %s: %+v", r.Path, r)
		}
	}
	byKey, err := write.GetDocumentByKey(ctx, cid, "guide/b.md")
	if err != nil || byKey.GetDocumentId() != docs[1].GetDocumentId() || byKey.GetMetadata().AsMap()["section"] != "guide" {
		t.Fatalf("by key: %v, %v", byKey, err)
	}
	res, err := write.WaitUntilSearchable(ctx, quire.WaitTarget{Documents: docs}, 90*time.Second)
	if err != nil || !res.Complete || res.Outcomes[0].Outcome != quire.WaitIndexed || res.Outcomes[1].Outcome != quire.WaitIndexed {
		t.Fatalf("wait: %+v, %v", res, err)
	}
	found, err := write.SearchKnowledge(ctx, &quirev1.SearchKnowledgeRequest{CollectionIds: []string{cid},
		Query: "damson jam", Filter: quire.Eq("section", "guide"), IncludeMetadata: true})
	if err != nil || len(found.GetHits()) == 0 {
		t.Fatalf("filtered search: %v, %v", found, err)
	}
	for _, hit := range found.GetHits() {
		if hit.GetExternalKey() != "guide/b.md" || hit.GetMetadata().AsMap()["section"] != "guide" {
			t.Fatalf("a hit outside the filter: %v", hit)
		}
	}
}
