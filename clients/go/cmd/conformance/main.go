// Command conformance runs the cross-language conformance scenarios
// (tests/conformance/scenarios/*.json) against a Quire server, exactly as
// tests/conformance/runner_python.py does:
//
//	python -m tests.conformance.harness -- go run ./clients/go/cmd/conformance
//	conformance [-scenarios DIR] [-k SUBSTRING] [-v]
//
// It reads QUIRE_CONFORMANCE_ADDRESS, QUIRE_CONFORMANCE_KEYS (JSON) and
// QUIRE_CONFORMANCE_FIXTURES (JSON, optional), prints one line per scenario and ends with
// `N passed, N failed` (plus `, N skipped`); the exit code is 1 when any scenario failed.
// Calls go through generic gRPC streams built from the quire.v1 descriptors (no per-RPC code);
// client steps (`"client": "wait_until_searchable"` etc.) call the quire package's helpers.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/quire/quire/clients/go/quire"
)

const defaultScenarios = "tests/conformance/scenarios"

func main() { os.Exit(run()) }

func run() int {
	dir := flag.String("scenarios", "", "scenario directory (default: tests/conformance/scenarios above the working directory)")
	filter := flag.String("k", "", "only scenarios whose name contains this")
	verbose := flag.Bool("v", false, "print every step")
	flag.Parse()

	address := os.Getenv("QUIRE_CONFORMANCE_ADDRESS")
	if address == "" {
		fmt.Println("QUIRE_CONFORMANCE_ADDRESS is not set (run through tests.conformance.harness)")
		return 2
	}
	keys := map[string]string{}
	if raw := os.Getenv("QUIRE_CONFORMANCE_KEYS"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &keys); err != nil {
			fmt.Printf("QUIRE_CONFORMANCE_KEYS is not a JSON object of strings: %v\n", err)
			return 2
		}
	}
	fixtures := map[string]any{}
	if raw := os.Getenv("QUIRE_CONFORMANCE_FIXTURES"); raw != "" {
		v, err := decodeJSON([]byte(raw))
		m, ok := v.(map[string]any)
		if err != nil || !ok {
			fmt.Printf("QUIRE_CONFORMANCE_FIXTURES is not a JSON object: %v\n", err)
			return 2
		}
		fixtures = m
	}
	if *dir == "" {
		*dir = findScenarios()
	}
	scenarios, err := load(*dir)
	if err != nil {
		fmt.Printf("cannot load scenarios from %s: %v\n", *dir, err)
		return 2
	}
	conn, err := grpc.NewClient(address, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20), grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		fmt.Printf("cannot connect to %s: %v\n", address, err)
		return 2
	}
	defer conn.Close()
	client, err := quire.Dial(context.Background(), address, quire.WithInsecure(), quire.WithAPIKey(""))
	if err != nil {
		fmt.Printf("cannot connect to %s: %v\n", address, err)
		return 2
	}
	defer client.Close()
	r := &runner{conn: conn, client: client, keys: keys, fixtures: fixtures}

	counts := map[string]int{}
	for _, sc := range scenarios {
		if *filter != "" && !strings.Contains(sc.name, *filter) {
			continue
		}
		res := r.runScenario(sc, *verbose)
		counts[res.status]++
		line := fmt.Sprintf("%s %s (%.2fs)", res.status, sc.name, res.seconds)
		if res.reason != "" {
			line += ": " + res.reason
		}
		fmt.Println(line)
	}
	summary := fmt.Sprintf("%d passed, %d failed", counts["PASS"], counts["FAIL"])
	if counts["SKIP"] > 0 {
		summary += fmt.Sprintf(", %d skipped", counts["SKIP"])
	}
	fmt.Println(summary)
	if counts["FAIL"] > 0 {
		return 1
	}
	return 0
}

// findScenarios looks for tests/conformance/scenarios in the working directory and its parents.
func findScenarios() string {
	dir, err := os.Getwd()
	if err != nil {
		return defaultScenarios
	}
	for {
		candidate := filepath.Join(dir, defaultScenarios)
		if info, err := os.Stat(candidate); err == nil && info.IsDir() {
			return candidate
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return defaultScenarios
		}
		dir = parent
	}
}

// ------------------------------------------------------------------ scenario files

type scenario struct {
	name     string
	body     map[string]any
	vars     []varDef // in file order
	requires map[string]bool
	fixtures []string
	steps    []map[string]any
}

type varDef struct {
	name  string
	value any
}

// load reads every *.json file in name order, scenarios in file order, merging the file's
// requires and fixtures.
func load(dir string) ([]*scenario, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no *.json files")
	}
	sort.Strings(paths)
	var out []*scenario
	seen := map[string]int{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var file struct {
			Requires  []string          `json:"requires"`
			Fixtures  []string          `json:"fixtures"`
			Scenarios []json.RawMessage `json:"scenarios"`
		}
		if err := json.Unmarshal(data, &file); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for _, raw := range file.Scenarios {
			sc, err := parseScenario(raw, file.Requires, file.Fixtures)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			seen[sc.name]++
			out = append(out, sc)
		}
	}
	var dups []string
	for name, n := range seen {
		if n > 1 {
			dups = append(dups, name)
		}
	}
	if len(dups) > 0 {
		sort.Strings(dups)
		return nil, fmt.Errorf("duplicate scenario names: %v", dups)
	}
	return out, nil
}

func parseScenario(raw json.RawMessage, fileRequires, fileFixtures []string) (*scenario, error) {
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	body, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a scenario is not an object")
	}
	var head struct {
		Name     string          `json:"name"`
		Requires []string        `json:"requires"`
		Fixtures []string        `json:"fixtures"`
		Vars     json.RawMessage `json:"vars"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, err
	}
	sc := &scenario{name: head.Name, body: body, requires: map[string]bool{}}
	for _, r := range append(append([]string{}, fileRequires...), head.Requires...) {
		sc.requires[r] = true
	}
	sc.fixtures = append(append([]string{}, fileFixtures...), head.Fixtures...)
	if len(head.Vars) > 0 {
		if sc.vars, err = orderedObject(head.Vars); err != nil {
			return nil, fmt.Errorf("%s: vars: %w", head.Name, err)
		}
	}
	steps, _ := body["steps"].([]any)
	for _, s := range steps {
		step, ok := s.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: a step is not an object", head.Name)
		}
		sc.steps = append(sc.steps, step)
	}
	return sc, nil
}

// orderedObject decodes a JSON object keeping its key order (vars may use earlier vars).
func orderedObject(raw json.RawMessage) ([]varDef, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not an object")
	}
	var out []varDef
	for dec.More() {
		keyTok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var value any
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		out = append(out, varDef{name: keyTok.(string), value: value})
	}
	return out, nil
}

// ------------------------------------------------------------------ running

type result struct {
	status  string // PASS | FAIL | SKIP
	reason  string
	seconds float64
}

func runID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (r *runner) runScenario(sc *scenario, verbose bool) (res result) {
	started := time.Now()
	res.status = "PASS"
	defer func() {
		if p := recover(); p != nil { // a runner bug must not stop the other scenarios
			res.status, res.reason = "FAIL", fmt.Sprintf("runner error: %v", p)
		}
		res.seconds = time.Since(started).Seconds()
	}()
	err := r.scenarioSteps(sc, verbose)
	var sk *skip
	var sf *stepFailed
	var se *scenarioError
	switch {
	case err == nil:
	case errors.As(err, &sk):
		res.status, res.reason = "SKIP", sk.msg
	case errors.As(err, &sf):
		res.status, res.reason = "FAIL", sf.msg
	case errors.As(err, &se):
		res.status, res.reason = "FAIL", "scenario error: "+se.msg
	default:
		res.status, res.reason = "FAIL", "runner error: "+err.Error()
	}
	return res
}

func (r *runner) scenarioSteps(sc *scenario, verbose bool) error {
	var missing []string
	for _, f := range sc.fixtures {
		if _, ok := r.fixtures[f]; !ok {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return &skip{"fixture(s) not provided: " + strings.Join(missing, ", ")}
	}
	env := map[string]any{}
	for k, v := range r.fixtures {
		env[k] = v
	}
	env["run_id"] = runID()
	env["scenario"] = sc.name
	for _, v := range sc.vars {
		value, err := substitute(v.value, env)
		if err != nil {
			return err
		}
		env[v.name] = value
	}
	for index, step := range sc.steps {
		call, _ := step["call"].(string)
		label := fmt.Sprintf("step %d (%s)", index+1, call)
		if helper, ok := step["client"].(string); ok {
			label = fmt.Sprintf("step %d (client %s)", index+1, helper)
		}
		if name, _ := step["name"].(string); name != "" {
			label = fmt.Sprintf("step %d (%s)", index+1, name)
		}
		until, _ := step["until"].(map[string]any)
		var deadline time.Time
		if until != nil {
			ms, _ := number(until["timeout_ms"])
			deadline = time.Now().Add(time.Duration(ms * float64(time.Millisecond)))
		}
		var out *outcome
		var problems []string
		for {
			var err error
			out, err = r.invoke(step, env)
			if err != nil {
				return err
			}
			if required := requiredCalls(sc, step); out.err != nil && out.err.grpcCode == "UNIMPLEMENTED" && len(required) > 0 {
				expect, err := substitute(orEmpty(step["expect"]), env)
				if err != nil {
					return err
				}
				if expectedGRPCCode(expect) != "UNIMPLEMENTED" {
					return &skip{fmt.Sprintf("requires %s (UNIMPLEMENTED)", strings.Join(required, ", "))}
				}
			}
			problems, err = check(step, out, env)
			if err != nil {
				return err
			}
			if len(problems) == 0 || until == nil || !time.Now().Before(deadline) {
				break
			}
			interval := 250.0
			if v, ok := number(until["interval_ms"]); ok {
				interval = v
			}
			time.Sleep(time.Duration(interval * float64(time.Millisecond)))
		}
		if len(problems) > 0 {
			return &stepFailed{label + ": " + strings.Join(problems, "; ")}
		}
		doc := out.ok
		if out.err != nil {
			doc = out.err.detail
		}
		if save, ok := step["save"].(map[string]any); ok {
			for _, name := range sortedKeys(save) {
				path, _ := save[name].(string)
				value := resolvePath(doc, path)
				if value == absent {
					return &stepFailed{fmt.Sprintf("%s: save %s: path %q not in response", label, name, path)}
				}
				env[name] = value
			}
		}
		if verbose {
			fmt.Printf("    ok %s\n", label)
		}
	}
	return nil
}

// requiredCalls are the RPCs of the step that the scenario requires, sorted.
func requiredCalls(sc *scenario, step map[string]any) []string {
	var out []string
	for _, call := range stepCalls(step) {
		if sc.requires[call] {
			out = append(out, call)
		}
	}
	sort.Strings(out)
	return out
}

func orEmpty(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}

func expectedGRPCCode(expect any) string {
	m, _ := expect.(map[string]any)
	e, _ := m["error"].(map[string]any)
	code, _ := e["grpc_code"].(string)
	return code
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// check compares an outcome with the step's expectation.
func check(step map[string]any, out *outcome, env map[string]any) ([]string, error) {
	raw, ok := step["expect"]
	if !ok {
		raw = map[string]any{"ok": map[string]any{}}
	}
	v, err := substitute(raw, env)
	if err != nil {
		return nil, err
	}
	expect, _ := v.(map[string]any)
	if wantRaw, ok := expect["error"]; ok {
		want, _ := wantRaw.(map[string]any)
		if out.err == nil {
			return []string{fmt.Sprintf("expected error %s, got ok %s", compact(wantRaw), short(out.ok))}, nil
		}
		got := out.err
		var problems []string
		if code, ok := want["grpc_code"]; ok && code != got.grpcCode {
			problems = append(problems, fmt.Sprintf("grpc_code: expected %v, got %s", code, got.grpcCode))
		}
		if code, ok := want["error_code"]; ok && code != got.errorCode {
			problems = append(problems, fmt.Sprintf("error_code: expected %v, got %s", code, got.errorCode))
		}
		detail, _ := got.detail.(map[string]any)
		if pattern, ok := want["current_revision"]; ok {
			actual, present := detail["currentRevision"]
			if !present {
				actual = absent
			}
			p, err := match(pattern, actual, "current_revision")
			if err != nil {
				return nil, err
			}
			problems = append(problems, p...)
		}
		if wantFields, ok := want["field_violations"]; ok {
			fields := []string{}
			violations, _ := detail["fieldViolations"].([]any)
			for _, fv := range violations {
				m, _ := fv.(map[string]any)
				f, _ := m["field"].(string)
				fields = append(fields, f)
			}
			var wantList []string
			list, _ := wantFields.([]any)
			for _, f := range list {
				wantList = append(wantList, asText(f))
			}
			sort.Strings(fields)
			sort.Strings(wantList)
			if strings.Join(fields, "\x00") != strings.Join(wantList, "\x00") || len(fields) != len(wantList) {
				problems = append(problems, fmt.Sprintf("field_violations: expected %s, got %s", compact(wantFields), compact(fields)))
			}
		}
		if wantRetry, ok := want["retry_after"]; ok {
			_, has := detail["retryAfter"]
			if has != truthy(wantRetry) {
				problems = append(problems, fmt.Sprintf("retry_after: expected set=%s, got %v", pyBool(wantRetry), has))
			}
		}
		if len(problems) > 0 {
			problems = append(problems, fmt.Sprintf("(message: %q)", got.message))
		}
		return problems, nil
	}
	if out.err != nil {
		return []string{fmt.Sprintf("expected ok, got %s %s: %q", out.err.grpcCode, out.err.errorCode, out.err.message)}, nil
	}
	wantOK, ok := expect["ok"]
	if !ok {
		wantOK = map[string]any{}
	}
	return match(wantOK, out.ok, "$")
}
