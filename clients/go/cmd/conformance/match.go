package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSON values are decoded with UseNumber: nil, bool, json.Number, string, []any, map[string]any.
// absent marks a missing field (Python's _ABSENT).
type absentType struct{}

var absent any = absentType{}

// scenarioError: the scenario file itself is wrong (unknown variable, key, call...).
type scenarioError struct{ msg string }

func (e *scenarioError) Error() string { return e.msg }

func scenarioErrorf(format string, args ...any) error {
	return &scenarioError{fmt.Sprintf(format, args...)}
}

// stepFailed, skip: control flow of a scenario.
type stepFailed struct{ msg string }

func (e *stepFailed) Error() string { return e.msg }

type skip struct{ msg string }

func (e *skip) Error() string { return e.msg }

// ------------------------------------------------------------------ JSON helpers

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// compact is Python's json.dumps(value, separators=(",", ":")).
func compact(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return strings.TrimRight(b.String(), "\n")
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepCopy(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = deepCopy(x)
		}
		return out
	}
	return v
}

// ------------------------------------------------------------------ variables

var varPattern = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_.]*)\}`)

func lookup(env map[string]any, name string) (any, error) {
	v, ok := env[name]
	if !ok {
		return nil, scenarioErrorf("unknown variable ${%s}", name)
	}
	return v, nil
}

func asText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return compact(v)
}

// substitute replaces ${var} in every string; a string that is exactly ${var} keeps the
// value's JSON type.
func substitute(value any, env map[string]any) (any, error) {
	switch t := value.(type) {
	case string:
		if m := varPattern.FindStringSubmatchIndex(t); m != nil && m[0] == 0 && m[1] == len(t) {
			v, err := lookup(env, t[m[2]:m[3]])
			if err != nil {
				return nil, err
			}
			return deepCopy(v), nil
		}
		var failure error
		out := varPattern.ReplaceAllStringFunc(t, func(s string) string {
			v, err := lookup(env, s[2:len(s)-1])
			if err != nil {
				failure = err
				return ""
			}
			return asText(v)
		})
		return out, failure
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			v, err := substitute(x, env)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			key, err := substitute(k, env)
			if err != nil {
				return nil, err
			}
			v, err := substitute(x, env)
			if err != nil {
				return nil, err
			}
			out[asText(key)] = v
		}
		return out, nil
	}
	return value, nil
}

// expandValues applies the request value operators $text, $base64 and $repeat.
func expandValues(value any) (any, error) {
	switch t := value.(type) {
	case map[string]any:
		if len(t) == 1 {
			for key, arg := range t {
				switch key {
				case "$text":
					s, ok := arg.(string)
					if !ok {
						return nil, scenarioErrorf("$text wants a string")
					}
					return base64.StdEncoding.EncodeToString([]byte(s)), nil
				case "$base64":
					return arg, nil
				case "$repeat":
					spec, ok := arg.(map[string]any)
					text, ok2 := spec["text"].(string)
					times, ok3 := number(spec["times"])
					if !ok || !ok2 || !ok3 {
						return nil, scenarioErrorf("$repeat wants {text, times}")
					}
					return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte(text), int(times))), nil
				}
			}
		}
		out := make(map[string]any, len(t))
		for k, x := range t {
			v, err := expandValues(x)
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			v, err := expandValues(x)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	return value, nil
}

// resolvePath follows a dotted path; numeric segments index lists. Returns absent when missing.
func resolvePath(doc any, path string) any {
	current := doc
	for _, part := range strings.Split(path, ".") {
		switch t := current.(type) {
		case []any:
			index, err := strconv.Atoi(part)
			if err != nil || !isDigits(part) {
				return absent
			}
			if index >= len(t) {
				return absent
			}
			current = t[index]
		case map[string]any:
			v, ok := t[part]
			if !ok {
				return absent
			}
			current = v
		default:
			return absent
		}
	}
	return current
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// ------------------------------------------------------------------ matching

// number is Python's _number: JSON numbers and numeric strings; never booleans.
func number(v any) (float64, bool) {
	switch t := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		return f, err == nil
	case float64:
		return t, true
	case int:
		return float64(t), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err != nil {
			var numErr *strconv.NumError
			if ok := asNumErr(err, &numErr); ok && numErr.Err == strconv.ErrRange {
				return f, true
			}
			return 0, false
		}
		return f, true
	}
	return 0, false
}

func asNumErr(err error, target **strconv.NumError) bool {
	ne, ok := err.(*strconv.NumError)
	if ok {
		*target = ne
	}
	return ok
}

func isNumber(v any) bool {
	switch v.(type) {
	case json.Number, float64, int:
		return true
	}
	return false
}

// isDefault: absent-equivalent values (false, 0, "", "0", null, [], {}, *_UNSPECIFIED).
func isDefault(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case bool:
		return !t
	case string:
		return t == "" || t == "0" || strings.HasSuffix(t, "_UNSPECIFIED")
	case []any:
		return len(t) == 0
	case map[string]any:
		return len(t) == 0
	}
	if isNumber(v) {
		f, _ := number(v)
		return f == 0
	}
	return false
}

func sameKindEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && x == y
	}
	return false
}

func scalarEqual(expected, actual any) bool {
	if actual == absent {
		return isDefault(expected)
	}
	if sameKindEqual(expected, actual) {
		return true
	}
	_, eb := expected.(bool)
	_, ab := actual.(bool)
	if eb || ab {
		return false
	}
	if isNumber(expected) || isNumber(actual) {
		a, okA := number(expected)
		b, okB := number(actual)
		return okA && okB && (a == b || (math.IsNaN(a) && math.IsNaN(b)))
	}
	return false
}

func short(v any) string {
	text := "<absent>"
	if v != absent {
		text = compact(v)
	}
	if len(text) > 300 {
		return text[:300] + "..."
	}
	return text
}

func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case []any:
		return len(t) > 0
	case map[string]any:
		return len(t) > 0
	}
	if f, ok := number(v); ok {
		return f != 0
	}
	return true
}

func isOperatorObject(m map[string]any) bool {
	if len(m) == 0 {
		return false
	}
	for k := range m {
		if !strings.HasPrefix(k, "$") {
			return false
		}
	}
	return true
}

// match returns mismatch descriptions (empty when actual satisfies expected).
func match(expected, actual any, where string) ([]string, error) {
	if m, ok := expected.(map[string]any); ok && isOperatorObject(m) {
		var problems []string
		for _, op := range sortedKeys(m) {
			p, err := operator(op, m[op], actual, where)
			if err != nil {
				return nil, err
			}
			problems = append(problems, p...)
		}
		return problems, nil
	}
	if m, ok := expected.(map[string]any); ok {
		obj, isObj := actual.(map[string]any)
		if actual == absent || !isObj {
			return []string{fmt.Sprintf("%s: expected an object, got %s", where, short(actual))}, nil
		}
		var problems []string
		for _, key := range sortedKeys(m) {
			got, present := obj[key]
			if !present {
				got = absent
			}
			p, err := match(m[key], got, where+"."+key)
			if err != nil {
				return nil, err
			}
			problems = append(problems, p...)
		}
		return problems, nil
	}
	if list, ok := expected.([]any); ok {
		var items any = actual
		if actual == absent {
			items = []any{}
		}
		got, isList := items.([]any)
		if !isList || len(got) != len(list) {
			return []string{fmt.Sprintf("%s: expected %d items, got %s", where, len(list), short(actual))}, nil
		}
		var problems []string
		for i := range list {
			p, err := match(list[i], got[i], fmt.Sprintf("%s.%d", where, i))
			if err != nil {
				return nil, err
			}
			problems = append(problems, p...)
		}
		return problems, nil
	}
	if !scalarEqual(expected, actual) {
		return []string{fmt.Sprintf("%s: expected %s, got %s", where, short(expected), short(actual))}, nil
	}
	return nil, nil
}

func operator(op string, arg, actual any, where string) ([]string, error) {
	var items any = actual
	if actual == absent {
		items = []any{}
	}
	fail := func(format string, args ...any) ([]string, error) {
		return []string{fmt.Sprintf(format, args...)}, nil
	}
	switch op {
	case "$len":
		want, ok := number(arg)
		if !ok {
			return nil, scenarioErrorf("$len wants a number")
		}
		n := -1
		switch t := items.(type) {
		case []any:
			n = len(t)
		case string:
			n = utf8.RuneCountInString(t)
		}
		if n < 0 || float64(n) != want {
			return fail("%s: expected length %s, got %s", where, compact(arg), short(actual))
		}
		return nil, nil
	case "$contains", "$not_contains", "$each":
		list, ok := items.([]any)
		if !ok {
			return fail("%s: expected a list, got %s", where, short(actual))
		}
		anyHit, all := false, true
		for _, item := range list {
			p, err := match(arg, item, where)
			if err != nil {
				return nil, err
			}
			if len(p) == 0 {
				anyHit = true
			} else {
				all = false
			}
		}
		if op == "$contains" && !anyHit {
			return fail("%s: no element matches %s in %s", where, short(arg), short(actual))
		}
		if op == "$not_contains" && anyHit {
			return fail("%s: an element matches %s", where, short(arg))
		}
		if op == "$each" && !all {
			return fail("%s: not every element matches %s", where, short(arg))
		}
		return nil, nil
	case "$nonempty":
		empty := actual == absent || isDefault(actual)
		if empty != truthy(arg) {
			return nil, nil
		}
		return fail("%s: $nonempty %s, got %s", where, pyBool(arg), short(actual))
	case "$absent":
		empty := actual == absent || isDefault(actual)
		if empty == truthy(arg) {
			return nil, nil
		}
		return fail("%s: $absent %s, got %s", where, pyBool(arg), short(actual))
	case "$ne":
		if scalarEqual(arg, actual) {
			return fail("%s: expected != %s", where, short(arg))
		}
		return nil, nil
	case "$substring":
		text := ""
		if actual != absent {
			s, ok := actual.(string)
			if !ok {
				return fail("%s: %s not in %s", where, short(arg), short(actual))
			}
			text = s
		}
		sub, ok := arg.(string)
		if !ok {
			return nil, scenarioErrorf("$substring wants a string")
		}
		if !strings.Contains(text, sub) {
			return fail("%s: %s not in %s", where, short(arg), short(actual))
		}
		return nil, nil
	case "$gte", "$lte", "$gt", "$lt":
		value := 0.0
		if actual != absent {
			v, ok := number(actual)
			if !ok {
				return fail("%s: expected a number, got %s", where, short(actual))
			}
			value = v
		}
		bound, ok := number(arg)
		if !ok {
			return nil, scenarioErrorf("%s wants a number", op)
		}
		holds := map[string]bool{"$gte": value >= bound, "$lte": value <= bound, "$gt": value > bound, "$lt": value < bound}[op]
		if !holds {
			return fail("%s: expected %s %s, got %s", where, op, compact(arg), short(actual))
		}
		return nil, nil
	}
	return nil, scenarioErrorf("unknown operator %s", op)
}

func pyBool(v any) string {
	if truthy(v) {
		return "True"
	}
	return "False"
}
