// Command example lists the collections of the caller's organisation and, given a
// namespace, runs one page search.
//
//	go run . -target 127.0.0.1:50051 -insecure                     # key from $QUIRE_API_KEY
//	go run . -target 127.0.0.1:50051 -insecure -namespace docs -query "pinned revision"
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/quire/quire/clients/go/quire"
	"github.com/quire/quire/clients/go/quirev1"
)

func main() {
	target := flag.String("target", "127.0.0.1:50051", "host:port of the Quire server")
	plaintext := flag.Bool("insecure", false, "connect without TLS (local servers)")
	namespace := flag.String("namespace", "", "namespace to search (optional)")
	query := flag.String("query", "revision", "search query")
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := []quire.Option{}
	if *plaintext {
		opts = append(opts, quire.WithInsecure())
	}
	client, err := quire.Dial(ctx, *target, opts...)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	collections, err := client.ListCollections(ctx)
	if err != nil {
		log.Fatalf("list collections: %v (tool error: %s)", err, quire.ToToolError(err))
	}
	fmt.Printf("%d collection(s)\n", len(collections))
	for _, c := range collections {
		fmt.Printf("  %s  %s  (%d documents)\n", c.GetCollectionId(), c.GetName(), c.GetDocumentCount())
	}

	if *namespace == "" {
		return
	}
	result, err := client.SearchPages(ctx, &quirev1.SearchPagesRequest{Namespace: *namespace, Query: *query, Limit: 5})
	switch {
	case errors.Is(err, quire.ErrNotFound):
		log.Fatalf("no namespace %q in this organisation", *namespace)
	case err != nil:
		log.Fatalf("search: %v", err)
	}
	for _, hit := range result.GetHits() {
		fmt.Printf("%2d. %s  %s\n", hit.GetRank(), hit.GetTitle(), hit.GetUrl())
	}
}
