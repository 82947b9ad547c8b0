package sanitize

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/jsonwalk"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/providers"
	"github.com/evcap/evcap/redact"
	"github.com/tidwall/gjson"
)

// RuleVolatileID is the scan rule for an id sanitize would replace with a
// pseudonym (a session id, uuid, message, tool-use, part or item id).
const RuleVolatileID = "volatile-id"

// ScanOptions configure Scan: the machine paths that must not appear and
// the repository's redaction config (its allowlist also covers ids).
type ScanOptions struct {
	Home    string
	Project string
	Temp    []string
	Config  redact.Config
}

// Finding is one thing Scan found: which rule matched on which line (1-based)
// of which file, and the record's sequence number (0 when the line has none,
// as in a fixture's header).
type Finding struct {
	File     string
	Line     int64
	Sequence int64
	Rule     string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", f.File, f.Line, f.Sequence, f.Rule)
}

// Scan reads a capture (JSONL records) or a fixture.json (one event per
// line) and reports every line that still holds something sanitize would
// change: a secret or machine path (the redact rules, with the given paths
// and the working directory the file itself declares), or a volatile id.
// It streams, and reports each rule at most once per line, rules sorted.
func Scan(r io.Reader, name string, opts ScanOptions) ([]Finding, error) {
	project := opts.Project
	newRed := func() (*redact.Redactor, error) {
		return redact.New(redact.Options{Home: opts.Home, Project: project, Temp: opts.Temp, Config: opts.Config})
	}
	red, err := newRed()
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	allowed, err := allowFunc(opts.Config)
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	known := newIDs()
	keys := providers.ProjectKeys()
	var out []Finding
	lr := lines.NewReader(r)
	for {
		line, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, lines.ErrTorn) {
			return out, fmt.Errorf("scan %s: %w", name, err)
		}
		rules := map[string]bool{}
		obj := bytes.TrimRight(bytes.TrimSpace(line), ",")
		var seq int64
		if gjson.ValidBytes(obj) && len(obj) > 0 && obj[0] == '{' {
			v := gjson.GetManyBytes(obj, "sequence", "stage", "payload", "sessionId", "provider")
			if v[0].Type == gjson.Number {
				seq = v[0].Int()
			}
			stage := envelope.Stage(v[1].String())
			payload := []byte(v[2].Raw)
			if opts.Project == "" && len(payload) > 0 {
				rec := &envelope.Record{Stage: stage, Payload: payload}
				_, _, body := split(rec)
				if p := declaredProject(stage, v[4].String(), body, keys); p != "" && p != project {
					rules[redact.RulePathProject] = true
					project = p
					if red, err = newRed(); err != nil {
						return out, fmt.Errorf("scan: %w", err)
					}
				}
			}
			if len(payload) > 0 {
				scanIDs(known, stage, payload, allowed, rules)
			}
			if sid := v[3].String(); sid != "" && !allowed(sid) {
				if family("session_id", sid) != "" {
					rules[RuleVolatileID] = true
				}
			}
		}
		for _, f := range red.Scan(line) {
			rules[f.Rule] = true
		}
		names := make([]string, 0, len(rules))
		for r := range rules {
			names = append(names, r)
		}
		sort.Strings(names)
		for _, r := range names {
			out = append(out, Finding{File: name, Line: lr.Line(), Sequence: seq, Rule: r})
		}
	}
	return out, nil
}

// scanIDs flags ids the way sanitize learns them (native and meta
// payloads) and known ids anywhere else.
func scanIDs(known *ids, stage envelope.Stage, payload []byte, allowed func(string) bool, rules map[string]bool) {
	rec := &envelope.Record{Stage: stage, Payload: payload}
	kind, _, body := split(rec)
	learn := stage == envelope.StageNativeIn || stage == envelope.StageMeta
	check := func(key, v string) {
		if learn {
			if fam := family(key, v); fam != "" && !allowed(v) {
				known.learn(fam, v)
				rules[RuleVolatileID] = true
			}
		}
		if _, ok := known.replace(v); ok {
			rules[RuleVolatileID] = true
		}
	}
	if kind == kindText {
		check("", string(body))
		return
	}
	var w jsonwalk.Walker
	_, _, _ = w.Walk(body, jsonwalk.VisitorFunc(func(w *jsonwalk.Walker, t *jsonwalk.Token) error {
		if t.Kind == jsonwalk.String {
			check(string(lastKey(w.Path())), string(t.Text()))
		}
		return nil
	}))
}

// allowFunc builds the allowlist test of a config.
func allowFunc(c redact.Config) (func(string) bool, error) {
	exact := map[string]bool{}
	for _, a := range c.Allow {
		exact[a] = true
	}
	var res []*regexp.Regexp
	for _, p := range c.AllowRegex {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("allow_regex %q: %w", p, err)
		}
		res = append(res, re)
	}
	return func(s string) bool {
		if exact[s] {
			return true
		}
		for _, re := range res {
			if re.MatchString(s) {
				return true
			}
		}
		return false
	}, nil
}
