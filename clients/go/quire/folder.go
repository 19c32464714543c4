package quire

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"google.golang.org/grpc/codes"

	"github.com/quire/quire/clients/go/quirev1"
)

// LargeFileBytes: UploadFolder streams files larger than this (1 MiB) one by one with
// UploadDocument; smaller ones go in UploadDocuments batches.
const LargeFileBytes = 1024 * 1024

// folderBatchFiles and folderBatchBytes bound one batch of small files (as the Python client
// does): small enough that a folder of a few hundred files is spread over
// `Concurrency` calls and the batches in memory stay small, large enough to save most of the
// per-call cost.
const (
	folderBatchFiles = 100
	folderBatchBytes = 8 * 1024 * 1024
)

// FolderOptions configures UploadFolder; the zero value is usable.
type FolderOptions struct {
	// Concurrency is how many upload calls run at once (default 4).
	Concurrency int
	// Key gives a file's external key from its path relative to the folder ("/"-separated).
	// Default: that path, so uploading the same folder again changes nothing
	// (UPLOAD_OUTCOME_UNCHANGED). Return "" for no key (a new document every time).
	Key func(relPath string) string
	// Metadata gives a file's metadata (nil: unset). Default: none.
	Metadata func(relPath string) map[string]any
	// Include decides whether a file or directory (skipping its whole tree) is uploaded.
	// Default: everything except names starting with "." (hidden files and directories).
	Include func(relPath string, entry fs.DirEntry) bool
	// BatchBytes is the server's QUIRE_MAX_UPLOAD_BYTES when it is below 8 MiB (batches stay
	// at most 100 files and 8 MiB, and at most this).
	BatchBytes int64
}

// FileResult is what UploadFolder did with one file.
type FileResult struct {
	// Path is the file's path relative to the folder, "/"-separated.
	Path string
	// Key is the external key sent ("" = none).
	Key string
	// Outcome is CREATED, REPLACED, UNCHANGED or METADATA_UPDATED; UNSPECIFIED when Err is set.
	Outcome quirev1.UploadOutcome
	// Document is the stored document (nil when Err is set).
	Document *quirev1.Document
	// Err is why the file was not stored: a *Error (the server's refusal of this file, or of
	// the call that carried it) or the error reading it.
	Err error
}

// UploadFolder uploads every regular file under dir (recursively, symbolic links not
// followed) into a collection and returns one FileResult per file, in path order. Small files
// go in UploadDocuments batches, files over LargeFileBytes are streamed one by one;
// opts.Concurrency calls run at once. It never stops at a file's failure: each file's result
// says what happened. The error is only for a dir that cannot be read, or ctx ending (the
// results so far are returned with it).
func (c *Client) UploadFolder(ctx context.Context, collectionID, dir string, opts FolderOptions) ([]FileResult, error) {
	files, err := walkFolder(dir, opts)
	if err != nil {
		return nil, err
	}
	results := make([]FileResult, len(files))
	jobs := planFolder(files, opts, results)
	concurrency := opts.Concurrency
	if concurrency <= 0 {
		concurrency = 4
	}
	var wg sync.WaitGroup
	queue := make(chan folderJob)
	for range min(concurrency, max(len(jobs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range queue {
				c.runFolderJob(ctx, collectionID, job, opts, results)
			}
		}()
	}
feed:
	for _, job := range jobs {
		select {
		case queue <- job:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return results, convert(err)
	}
	return results, nil
}

// folderFile is a file found by walkFolder.
type folderFile struct {
	rel  string // relative, "/"-separated
	path string // as opened
	size int64
	err  error // from the walk (the file is reported, not uploaded)
}

// walkFolder lists the regular files under dir in path order.
func walkFolder(dir string, opts FolderOptions) ([]folderFile, error) {
	include := opts.Include
	if include == nil {
		include = func(_ string, entry fs.DirEntry) bool { return !strings.HasPrefix(entry.Name(), ".") }
	}
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, &fs.PathError{Op: "upload folder", Path: dir, Err: errors.New("not a directory")}
	}
	var files []folderFile
	walkErr := filepath.WalkDir(dir, func(path string, entry fs.DirEntry, err error) error {
		if path == dir {
			return err // the root itself unreadable: the whole upload fails
		}
		rel, relErr := filepath.Rel(dir, path)
		if relErr != nil {
			return relErr
		}
		rel = filepath.ToSlash(rel)
		if err != nil {
			files = append(files, folderFile{rel: rel, path: path, err: err})
			return nil
		}
		if !include(rel, entry) {
			if entry.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !entry.Type().IsRegular() {
			return nil
		}
		fi, err := entry.Info()
		if err != nil {
			files = append(files, folderFile{rel: rel, path: path, err: err})
			return nil
		}
		files = append(files, folderFile{rel: rel, path: path, size: fi.Size()})
		return nil
	})
	return files, walkErr
}

// folderJob is one call: a batch of small files, or one large file (large set).
type folderJob struct {
	indexes []int // into files / results
	files   []folderFile
	large   bool
}

// planFolder fills the results known without a call (walk errors, keys) and groups the
// files into jobs: small files in path order into batches, each large file alone.
func planFolder(files []folderFile, opts FolderOptions, results []FileResult) []folderJob {
	limit := int64(folderBatchBytes)
	if opts.BatchBytes > 0 && opts.BatchBytes < limit {
		limit = opts.BatchBytes
	}
	var jobs []folderJob
	var batch folderJob
	var batchBytes int64
	for i, f := range files {
		results[i] = FileResult{Path: f.rel, Key: folderKey(opts, f.rel), Err: f.err}
		if f.err != nil {
			continue
		}
		if f.size > LargeFileBytes {
			jobs = append(jobs, folderJob{indexes: []int{i}, files: []folderFile{f}, large: true})
			continue
		}
		if len(batch.files) > 0 && (len(batch.files) >= folderBatchFiles || batchBytes+f.size > limit) {
			jobs = append(jobs, batch)
			batch, batchBytes = folderJob{}, 0
		}
		batch.indexes = append(batch.indexes, i)
		batch.files = append(batch.files, f)
		batchBytes += f.size
	}
	if len(batch.files) > 0 {
		jobs = append(jobs, batch)
	}
	return jobs
}

func folderKey(opts FolderOptions, rel string) string {
	if opts.Key == nil {
		return rel
	}
	return opts.Key(rel)
}

func folderMetadata(opts FolderOptions, rel string) map[string]any {
	if opts.Metadata == nil {
		return nil
	}
	return opts.Metadata(rel)
}

// runFolderJob makes one job's call and writes its files' results (each job owns its
// indexes, so no lock is needed).
func (c *Client) runFolderJob(ctx context.Context, collectionID string, job folderJob, opts FolderOptions, results []FileResult) {
	if job.large {
		i, f := job.indexes[0], job.files[0]
		results[i].Outcome, results[i].Document, results[i].Err = c.uploadLargeFile(ctx, collectionID, f, results[i].Key, opts)
		return
	}
	items := make([]UploadItem, 0, len(job.files))
	sent := make([]int, 0, len(job.files)) // the result index of each item
	for n, f := range job.files {
		data, err := os.ReadFile(f.path)
		if err != nil {
			results[job.indexes[n]].Err = err
			continue
		}
		items = append(items, UploadItem{FileName: filepath.Base(f.path), Data: data,
			ExternalKey: results[job.indexes[n]].Key, Metadata: folderMetadata(opts, f.rel)})
		sent = append(sent, job.indexes[n])
	}
	resp, err := c.UploadDocuments(ctx, collectionID, items, WithBatchBytes(opts.BatchBytes))
	answered := make([]bool, len(items))
	for _, r := range resp.GetResults() {
		n := int(r.GetIndex())
		if n >= len(items) {
			continue
		}
		answered[n] = true
		res := &results[sent[n]]
		if r.GetError() != nil {
			res.Err = errorOfDetail(r.GetError())
			continue
		}
		res.Outcome, res.Document = r.GetOutcome(), r.GetDocument()
	}
	if err != nil {
		for n, done := range answered {
			if !done {
				results[sent[n]].Err = err
			}
		}
	}
}

// uploadLargeFile streams one file with UploadDocument.
func (c *Client) uploadLargeFile(ctx context.Context, collectionID string, f folderFile, key string, opts FolderOptions) (quirev1.UploadOutcome, *quirev1.Document, error) {
	meta, refusal := uploadMetadata(collectionID, UploadItem{FileName: filepath.Base(f.path), ExternalKey: key, Metadata: folderMetadata(opts, f.rel)})
	if refusal != nil {
		return quirev1.UploadOutcome_UPLOAD_OUTCOME_UNSPECIFIED, nil, errorOfDetail(refusal)
	}
	file, err := os.Open(f.path)
	if err != nil {
		return quirev1.UploadOutcome_UPLOAD_OUTCOME_UNSPECIFIED, nil, err
	}
	defer file.Close()
	resp, err := c.UploadDocumentResult(ctx, meta, file)
	if err != nil {
		return quirev1.UploadOutcome_UPLOAD_OUTCOME_UNSPECIFIED, nil, err
	}
	return resp.GetOutcome(), resp.GetDocument(), nil
}

// errorOfDetail is the *Error of a per-document refusal (UploadResult.Error); its GRPCCode is
// the canonical gRPC code of that Quire code where the contract maps one, else Unknown.
func errorOfDetail(detail *quirev1.ErrorDetail) *Error {
	grpcCode := codes.Unknown
	for gc, code := range codeByGRPC {
		if code == detail.GetCode() && gc != codes.Canceled {
			grpcCode = gc
		}
	}
	return &Error{Code: detail.GetCode(), GRPCCode: grpcCode, Message: detail.GetMessage(), Detail: detail}
}
