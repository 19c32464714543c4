package quire

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quire/quire/clients/go/quirev1"
)

// WaitOutcome is how the wait for one document ended.
type WaitOutcome string

// The outcomes of WaitUntilSearchable (the same words in every Quire client).
const (
	// WaitIndexed: the collection's serving index holds the document's current text.
	WaitIndexed WaitOutcome = "INDEXED"
	// WaitFailed: extraction failed for good; Reason is the document's extract_error.
	WaitFailed WaitOutcome = "FAILED"
	// WaitNoText: extracted, but the file holds no text (nothing to index).
	WaitNoText WaitOutcome = "NO_TEXT"
	// WaitDeleted: the document was deleted, or was not found.
	WaitDeleted WaitOutcome = "DELETED"
	// WaitTimedOut: the timeout came first.
	WaitTimedOut WaitOutcome = "TIMED_OUT"
)

// DocumentOutcome is one document's outcome.
type DocumentOutcome struct {
	DocumentID string
	Outcome    WaitOutcome
	// Reason is the extract_error for WaitFailed, else "".
	Reason string
}

// WaitResult is the answer of WaitUntilSearchable.
type WaitResult struct {
	// Outcomes: one per document, in the order of WaitTarget.DocumentIDs (or Documents); for a
	// collection, by ascending document id.
	Outcomes []DocumentOutcome
	// Complete is true when no outcome is WaitTimedOut.
	Complete bool
}

// WaitTarget names what WaitUntilSearchable waits for: exactly one of its fields.
type WaitTarget struct {
	// DocumentIDs: these documents (each is read once to learn its collection).
	DocumentIDs []string
	// Documents: these documents, e.g. as an upload returned them (no read needed).
	Documents []*quirev1.Document
	// CollectionID: every live document of the collection when the wait starts.
	CollectionID string
}

// watchBatch is the most document ids one WatchDocuments call may name.
const watchBatch = 1000

// finalChecks bounds the documents read again when the timeout comes, to tell documents that
// vanished before their watch started (DELETED) from ones still pending (TIMED_OUT).
const finalChecks = 100

// WaitUntilSearchable waits until every target document is searchable in its final form
// (INDEXED) or can never be (FAILED, NO_TEXT, DELETED), at most timeout (≤ 0: until ctx
// ends). It watches with WatchDocuments, one watch per collection (restricted to the target's
// documents), and reconnects a watch dropped with UNAVAILABLE within the timeout.
//
// The timeout is not an error: the documents still waiting are WaitTimedOut and Complete is
// false. Errors are for bad input (a target with none or several fields set:
// ErrInvalidRequest naming "document_ids"), auth, an unknown collection (CollectionID form),
// and ctx being cancelled.
func (c *Client) WaitUntilSearchable(ctx context.Context, target WaitTarget, timeout time.Duration) (*WaitResult, error) {
	set := 0
	for _, given := range []bool{target.DocumentIDs != nil, target.Documents != nil, target.CollectionID != ""} {
		if given {
			set++
		}
	}
	if set != 1 {
		return nil, invalidRequest("document_ids", "exactly one of document_ids, documents, collection_id",
			"WaitUntilSearchable needs exactly one of DocumentIDs, Documents or CollectionID")
	}
	waitCtx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		waitCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()

	w := &waiter{done: map[string]DocumentOutcome{}}
	order, groups, err := c.resolveTargets(waitCtx, target, w)
	if err != nil && !timedOut(ctx, waitCtx, err) {
		return nil, err
	}
	if err == nil {
		if err := c.watchGroups(waitCtx, groups, w); err != nil && !timedOut(ctx, waitCtx, err) {
			return nil, err
		}
	}
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, convert(ctx.Err())
	}
	c.checkPending(ctx, order, w)
	return w.result(order), nil
}

// timedOut: waitCtx ended by the wait's own timeout or ctx's deadline (not a cancellation).
// A DEADLINE_EXCEEDED status while ctx is live can only come from waitCtx's deadline, even
// when it arrives a little before waitCtx's own timer fires: the server enforces the deadline
// it was sent (grpc-timeout) by its own clock.
func timedOut(ctx, waitCtx context.Context, err error) bool {
	if ctx.Err() != nil {
		return errors.Is(ctx.Err(), context.DeadlineExceeded)
	}
	if _, limited := waitCtx.Deadline(); limited && status.Code(err) == codes.DeadlineExceeded {
		return true
	}
	return ended(waitCtx)
}

// ended: ctx is done or its deadline has passed. gRPC fails a call at its deadline by its own
// timer, which can fire just before the context's.
func ended(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	deadline, ok := ctx.Deadline()
	return ok && !time.Now().Before(deadline)
}

// waiter holds the outcomes found so far (shared by the watches).
type waiter struct {
	mu   sync.Mutex
	done map[string]DocumentOutcome
}

// record notes doc's outcome when its state is final.
func (w *waiter) record(doc *quirev1.Document) {
	outcome, reason, final := finalState(doc)
	if !final {
		return
	}
	w.set(doc.GetDocumentId(), outcome, reason)
}

func (w *waiter) set(id string, outcome WaitOutcome, reason string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done[id] = DocumentOutcome{DocumentID: id, Outcome: outcome, Reason: reason}
}

// pending lists the ids without an outcome.
func (w *waiter) pending(ids []string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, id := range ids {
		if _, ok := w.done[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

func (w *waiter) result(order []string) *WaitResult {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := &WaitResult{Outcomes: make([]DocumentOutcome, 0, len(order)), Complete: true}
	for _, id := range order {
		o, ok := w.done[id]
		if !ok {
			o = DocumentOutcome{DocumentID: id, Outcome: WaitTimedOut}
			r.Complete = false
		}
		r.Outcomes = append(r.Outcomes, o)
	}
	return r
}

// finalState maps a document's state to its outcome; final is false while it may still
// become searchable.
func finalState(doc *quirev1.Document) (outcome WaitOutcome, reason string, final bool) {
	if doc.GetStatus() == quirev1.DocumentStatus_DOCUMENT_STATUS_DELETED {
		return WaitDeleted, "", true
	}
	switch doc.GetIndexState() {
	case quirev1.DocumentIndexState_DOCUMENT_INDEX_STATE_INDEXED:
		return WaitIndexed, "", true
	case quirev1.DocumentIndexState_DOCUMENT_INDEX_STATE_NO_TEXT:
		return WaitNoText, "", true
	case quirev1.DocumentIndexState_DOCUMENT_INDEX_STATE_FAILED:
		return WaitFailed, doc.GetExtractError(), true
	}
	if doc.GetStatus() == quirev1.DocumentStatus_DOCUMENT_STATUS_FAILED {
		return WaitFailed, doc.GetExtractError(), true
	}
	return "", "", false
}

// resolveTargets returns the output order and the documents to watch by collection, noting
// the outcomes already final.
func (c *Client) resolveTargets(ctx context.Context, target WaitTarget, w *waiter) ([]string, map[string][]string, error) {
	groups := map[string][]string{}
	seen := map[string]bool{}
	add := func(doc *quirev1.Document) {
		id := doc.GetDocumentId()
		if seen[id] {
			return
		}
		seen[id] = true
		w.record(doc)
		if len(w.pending([]string{id})) == 1 {
			groups[doc.GetCollectionId()] = append(groups[doc.GetCollectionId()], id)
		}
	}
	var order []string
	switch {
	case target.DocumentIDs != nil:
		order = target.DocumentIDs
		for _, id := range target.DocumentIDs {
			if seen[id] {
				continue
			}
			doc, err := c.GetDocument(ctx, id)
			if errors.Is(err, ErrDocumentNotFound) {
				seen[id] = true
				w.set(id, WaitDeleted, "")
				continue
			}
			if err != nil {
				return order, groups, err
			}
			add(doc)
		}
	case target.Documents != nil:
		for _, doc := range target.Documents {
			order = append(order, doc.GetDocumentId())
			add(doc)
		}
	default:
		for doc, err := range c.AllDocuments(ctx, target.CollectionID, 500) {
			if err != nil {
				return order, groups, err
			}
			order = append(order, doc.GetDocumentId())
			add(doc)
		}
		slices.Sort(order)
	}
	return order, groups, nil
}

// watchGroups runs one watch per collection and 1,000 documents at once, until each has
// seen its documents' outcomes or ctx ends; the first error other than ctx's is returned.
func (c *Client) watchGroups(ctx context.Context, groups map[string][]string, w *waiter) error {
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for collectionID, ids := range groups {
		for chunk := range slices.Chunk(ids, watchBatch) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := c.watchUntilFinal(ctx, collectionID, chunk, w); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}()
		}
	}
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// watchUntilFinal watches ids of a collection until all have an outcome. A watch that ends
// or drops with UNAVAILABLE is opened again after a backoff (200 ms doubling to 2 s); the
// new watch's first messages are the documents' current states, so no change is missed.
func (c *Client) watchUntilFinal(ctx context.Context, collectionID string, ids []string, w *waiter) error {
	backoff := 200 * time.Millisecond
	for {
		watching := w.pending(ids)
		if len(watching) == 0 {
			return nil
		}
		var streamErr error
		for doc, err := range c.WatchDocuments(ctx, collectionID, watching...) {
			if err != nil {
				streamErr = err
				break
			}
			backoff = 200 * time.Millisecond
			w.record(doc)
			if len(w.pending(watching)) == 0 {
				return nil
			}
		}
		if ended(ctx) {
			return nil // the timeout: the caller reports what is left as TIMED_OUT
		}
		if streamErr != nil {
			if IsCode(streamErr, quirev1.ErrorCode_ERROR_CODE_COLLECTION_NOT_FOUND) {
				for _, id := range watching { // the collection went away with its documents
					w.set(id, WaitDeleted, "")
				}
				return nil
			}
			if !IsRetryable(streamErr) {
				return streamErr
			}
		}
		if !sleep(ctx, backoff) {
			return nil
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// checkPending reads the documents still waiting once more (at most finalChecks, within 5 s
// of ctx): one deleted before its watch started is never reported by the watch.
func (c *Client) checkPending(ctx context.Context, order []string, w *waiter) {
	pending := w.pending(order)
	if len(pending) == 0 || len(pending) > finalChecks || ctx.Err() != nil {
		return
	}
	checkCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for _, id := range pending {
		doc, err := c.GetDocument(checkCtx, id)
		switch {
		case errors.Is(err, ErrDocumentNotFound):
			w.set(id, WaitDeleted, "")
		case err == nil:
			w.record(doc)
		default:
			return
		}
	}
}
