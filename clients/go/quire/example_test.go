package quire_test

// These examples are the snippets of docs/clients/go.md ("Keys, metadata and filters",
// "Batches and folders", "Waiting until searchable", "Iterators"): go vet and go test compile
// them, so the guide cannot drift from the API. They have no Output, so they are not run.

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/quire/quire/clients/go/quire"
	"github.com/quire/quire/clients/go/quirev1"
)

func ExampleClient_UploadDocumentResult() {
	ctx := context.Background()
	client, _ := quire.Dial(ctx, "127.0.0.1:50051", quire.WithInsecure())
	cid, data := "collection-id", []byte("# Refunds\n...")
	md, err := quire.NewMetadata(map[string]any{"customer": "acme", "version": 2, "tags": []any{"billing"}})
	if err != nil {
		return
	}
	meta := &quirev1.UploadMetadata{CollectionId: cid, FileName: "refunds.md", ExternalKey: quire.Key("policies/refunds.md"), Metadata: md}
	res, err := client.UploadDocumentResult(ctx, meta, bytes.NewReader(data))
	if err != nil {
		return
	}
	fmt.Println(res.GetOutcome(), res.GetDocument().GetDocumentId())

	patch, _ := quire.NewMetadata(map[string]any{"version": 3, "tags": nil})
	doc, err := client.UpdateDocumentMetadata(ctx, &quirev1.UpdateDocumentMetadataRequest{
		CollectionId: cid, ExternalKey: quire.Key("policies/refunds.md"), Patch: patch})
	if err == nil {
		fmt.Println(doc.GetMetadata().AsMap()["version"])
	}
	_, _ = client.DeleteDocumentByKey(ctx, cid, "policies/refunds.md")
}

func ExampleAll() {
	ctx := context.Background()
	client, _ := quire.Dial(ctx, "127.0.0.1:50051", quire.WithInsecure())
	found, err := client.SearchKnowledge(ctx, &quirev1.SearchKnowledgeRequest{
		AgentId: "support-bot", Query: "refund window",
		Filter: quire.All(
			quire.Eq("customer", "acme"),
			quire.AnyOf("tier", "gold", "silver"),
			quire.Range("version", quire.Gte(2), quire.Lt(3)),
			quire.TimeRange("published", quire.AtOrAfter(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))),
			quire.Not(quire.Exists("archived")),
		),
		IncludeMetadata: true,
	})
	if err == nil {
		for _, hit := range found.GetHits() {
			fmt.Println(hit.GetExternalKey(), hit.GetMetadata().AsMap())
		}
	}
	gone, err := client.DeleteDocuments(ctx, &quirev1.DeleteDocumentsRequest{CollectionId: "collection-id",
		Filter: quire.TimeRange("expires", quire.Before(time.Now()))})
	if err == nil {
		fmt.Println(gone.GetDeletedCount(), gone.GetRevision())
	}
}

func ExampleClient_UploadDocuments() {
	ctx := context.Background()
	client, _ := quire.Dial(ctx, "127.0.0.1:50051", quire.WithInsecure())
	resp, err := client.UploadDocuments(ctx, "collection-id", []quire.UploadItem{
		{FileName: "a.md", Data: []byte("alpha"), ExternalKey: "docs/a.md", Metadata: map[string]any{"lang": "en"}},
		{FileName: "b.md", Data: []byte("beta"), ExternalKey: "docs/b.md"},
	})
	if err != nil {
		return
	}
	for _, r := range resp.GetResults() {
		if r.GetError() != nil {
			fmt.Println(r.GetIndex(), r.GetError().GetCode())
			continue
		}
		fmt.Println(r.GetIndex(), r.GetOutcome(), r.GetDocument().GetDocumentId())
	}
}

func ExampleClient_UploadFolder() {
	ctx := context.Background()
	client, _ := quire.Dial(ctx, "127.0.0.1:50051", quire.WithInsecure())
	results, err := client.UploadFolder(ctx, "collection-id", "./handbook", quire.FolderOptions{
		Concurrency: 4,
		Metadata: func(rel string) map[string]any {
			return map[string]any{"section": strings.Split(rel, "/")[0]}
		},
	})
	if err != nil {
		return
	}
	for _, r := range results {
		if r.Err != nil {
			fmt.Println(r.Path, quire.CodeOf(r.Err), r.Err)
			continue
		}
		fmt.Println(r.Path, r.Key, r.Outcome)
	}
}

func ExampleClient_WaitUntilSearchable() {
	ctx := context.Background()
	client, _ := quire.Dial(ctx, "127.0.0.1:50051", quire.WithInsecure())
	res, err := client.WaitUntilSearchable(ctx, quire.WaitTarget{DocumentIDs: []string{"document-id"}}, 2*time.Minute)
	if err != nil {
		return
	}
	for _, o := range res.Outcomes {
		switch o.Outcome {
		case quire.WaitIndexed, quire.WaitNoText, quire.WaitDeleted:
			fmt.Println(o.DocumentID, o.Outcome)
		case quire.WaitFailed:
			fmt.Println(o.DocumentID, "failed:", o.Reason)
		case quire.WaitTimedOut:
			fmt.Println(o.DocumentID, "still pending")
		}
	}
	fmt.Println(res.Complete)
}

func ExampleClient_Documents() {
	ctx := context.Background()
	client, _ := quire.Dial(ctx, "127.0.0.1:50051", quire.WithInsecure())
	for doc, err := range client.Documents(ctx, &quirev1.ListDocumentsRequest{
		CollectionId: "collection-id", Filter: quire.Eq("customer", "acme"), Limit: 200}) {
		if err != nil {
			return
		}
		fmt.Println(doc.GetExternalKey(), doc.GetIndexState())
	}
	for page, err := range client.Pages(ctx, &quirev1.ListPagesRequest{Namespace: "docs", Prefix: "/guide/"}) {
		if err != nil {
			return
		}
		fmt.Println(page.GetPath())
	}
	for agent, err := range client.Agents(ctx, 0) {
		if err != nil {
			return
		}
		fmt.Println(agent.GetAgentId())
	}
}
