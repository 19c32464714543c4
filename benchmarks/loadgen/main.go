// Command loadgen drives SearchKnowledge (or GetCollection, or SearchPages) at a fixed concurrency
// for a fixed time over many gRPC connections, for benchmarks/processes.py. Queries come on
// stdin, one per line. SearchKnowledge sends each once (so none is answered from the search
// cache); SearchPages, which has no result cache, cycles through them. It prints one JSON
// object.
//
// It is written in Go so the load costs the 2-core machine little CPU beside the servers it
// measures; its own CPU time is in the report.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/quire/quire/clients/go/quirev1"
)

type report struct {
	Requests     int            `json:"requests"`
	Errors       map[string]int `json:"errors"`
	FirstError   string         `json:"first_error,omitempty"`
	Cached       int            `json:"cached"`
	QueriesUsed  int            `json:"queries_used"`
	QueriesShort bool           `json:"queries_ran_out"`
	Seconds      float64        `json:"seconds"`
	PerSecond    float64        `json:"requests_per_s"`
	P50Ms        float64        `json:"p50_ms"`
	P95Ms        float64        `json:"p95_ms"`
	P99Ms        float64        `json:"p99_ms"`
	CPUSeconds   float64        `json:"loadgen_cpu_s"`
}

func main() {
	address := flag.String("address", "127.0.0.1:50051", "server address")
	key := flag.String("key", "", "API key")
	collection := flag.String("collection", "", "collection id")
	mode := flag.Int("mode", 1, "RetrievalMode number (1 LEGACY_FTS, 3 HYBRID)")
	concurrency := flag.Int("concurrency", 64, "calls in flight")
	connections := flag.Int("connections", 64, "gRPC connections (the calls spread over them)")
	seconds := flag.Float64("seconds", 10, "how long to run")
	limit := flag.Uint("limit", 8, "hits per search")
	namespace := flag.String("namespace", "", "pages namespace (-rpc search-pages)")
	rpc := flag.String("rpc", "search", "search (SearchKnowledge, one query each), get-collection "+
		"(GetCollection: little database work, so the server process itself is the bound) or "+
		"search-pages (SearchPages, the queries in turn)")
	flag.Parse()

	var queries []string
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		if line := scanner.Text(); line != "" {
			queries = append(queries, line)
		}
	}

	conns := make([]*grpc.ClientConn, *connections)
	for i := range conns {
		// Distinct connections: SO_REUSEPORT spreads connections, not calls, over processes.
		conn, err := grpc.NewClient(*address, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer conn.Close()
		conn.Connect()
		conns[i] = conn
	}

	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+*key)
	var next atomic.Int64
	var mu sync.Mutex
	latencies := make([]float64, 0, 1<<16)
	rep := report{Errors: map[string]int{}}
	deadline := time.Now().Add(time.Duration(*seconds * float64(time.Second)))
	started := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < *concurrency; w++ {
		wg.Add(1)
		go func(client quirev1.KnowledgeServiceClient, pages quirev1.PagesServiceClient) {
			defer wg.Done()
			for time.Now().Before(deadline) {
				i := int(next.Add(1)) - 1
				if *rpc == "search" && i >= len(queries) {
					mu.Lock()
					rep.QueriesShort = true
					mu.Unlock()
					return
				}
				call, cancel := context.WithTimeout(ctx, 30*time.Second)
				t0 := time.Now()
				cached := false
				var err error
				switch *rpc {
				case "search-pages":
					_, err = pages.SearchPages(call, &quirev1.SearchPagesRequest{
						Namespace: *namespace,
						Query:     queries[i%len(queries)],
					})
				case "search":
					var resp *quirev1.SearchKnowledgeResponse
					resp, err = client.SearchKnowledge(call, &quirev1.SearchKnowledgeRequest{
						CollectionIds: []string{*collection},
						Query:         queries[i],
						Limit:         uint32(*limit),
						Mode:          quirev1.RetrievalMode(*mode),
					})
					cached = resp.GetCached()
				default:
					_, err = client.GetCollection(call, &quirev1.GetCollectionRequest{CollectionId: *collection})
				}
				took := time.Since(t0).Seconds() * 1000
				cancel()
				mu.Lock()
				if err != nil {
					code := status.Code(err).String()
					rep.Errors[code]++
					if rep.FirstError == "" {
						rep.FirstError = err.Error()
					}
				} else {
					latencies = append(latencies, took)
					if cached {
						rep.Cached++
					}
				}
				mu.Unlock()
			}
		}(quirev1.NewKnowledgeServiceClient(conns[w%len(conns)]), quirev1.NewPagesServiceClient(conns[w%len(conns)]))
	}
	wg.Wait()
	elapsed := time.Since(started).Seconds()

	sort.Float64s(latencies)
	at := func(p float64) float64 {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))]
	}
	rep.Requests = len(latencies)
	rep.QueriesUsed = int(min(next.Load(), int64(len(queries))))
	rep.Seconds = elapsed
	rep.PerSecond = float64(len(latencies)) / elapsed
	rep.P50Ms, rep.P95Ms, rep.P99Ms = at(0.50), at(0.95), at(0.99)
	var usage syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &usage) == nil {
		rep.CPUSeconds = float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e9
	}
	out, _ := json.Marshal(rep)
	fmt.Println(string(out))
}
