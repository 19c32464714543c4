// A user's program built against the Go module through a `replace` directive, in a scratch
// module outside the repository (tests/packaging/test_go_module.py writes its go.mod).
//
//	QUIRE_ADDRESS=host:port QUIRE_API_KEY=qk_... QUIRE_DOCUMENT_ID=... go run .
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/quire/quire/clients/go/quire"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := quire.Dial(ctx, os.Getenv("QUIRE_ADDRESS"), quire.WithInsecure(), quire.WithAPIKey(os.Getenv("QUIRE_API_KEY")))
	if err != nil {
		return err
	}
	defer client.Close()

	document, err := client.GetDocument(ctx, os.Getenv("QUIRE_DOCUMENT_ID"))
	if err != nil {
		return err
	}
	fmt.Printf("document %s %s size_bytes=%d revision=%d\n", document.GetDocumentId(), document.GetFileName(), document.GetSizeBytes(), document.GetRevision())

	collections, err := client.ListCollections(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("collections %d\n", len(collections))

	_, err = client.GetDocument(ctx, "00000000-0000-4000-8000-000000000000")
	var quireErr *quire.Error
	if !errors.As(err, &quireErr) {
		return fmt.Errorf("missing document: want a *quire.Error, got %v", err)
	}
	fmt.Printf("missing_document %s\n", quireErr.Code)
	return nil
}
