package main

// The floor stages: evbench re-runs itself as a tool that does only the
// part of evcap's work no implementation of the same job can skip, so that
// a missed ratio can be set against what the bare minimum costs on the
// same machine in the same invocation. Each stage adds one step to the one
// before:
//
//	lines     split the file into lines (internal/lines)
//	valid     + check every line is JSON (gjson.ValidBytes): what normalize
//	          and replay must do before they trust a line
//	walk      lines + walk every line as JSON with internal/jsonwalk (which
//	          validates too), decoding every string: what any redactor that
//	          reads decoded text does
//	keywords  + look for every built-in redaction rule's keywords in every
//	          decoded string, with a case-folding Aho–Corasick DFA (one table
//	          lookup per byte: the least a sound keyword prefilter can do)
//	write     + write every line to stdout (what sanitize and record must)
//
// No stage finds, replaces or reports anything. A redacting command
// (sanitize, record, scan) does at least the walk and the keyword search,
// so with these pieces its time is not below the keywords stage's; the
// lines and valid stages are for reference (normalize and replay validate
// with their own faster readers, so they can beat them).

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/evcap/evcap/internal/jsonwalk"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/redact"
	"github.com/tidwall/gjson"
)

// floorEnv names the stage when evbench runs as a floor tool.
const floorEnv = "EVBENCH_FLOOR"

var floorStages = []string{"lines", "valid", "walk", "keywords", "write"}

// floorTool returns the tool that runs stage on path.
func floorTool(name, stage, path string) tool {
	self, err := os.Executable()
	if err != nil {
		self = os.Args[0]
	}
	return tool{name: name, argv: []string{self, path}, env: []string{floorEnv + "=" + stage}}
}

// runFloor is main when floorEnv is set: it runs one stage on the file
// named by the first argument and exits non-zero on any error.
func runFloor(stage string) {
	if err := floor(stage, os.Args[1], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "evbench floor:", err)
		os.Exit(1)
	}
}

func floor(stage, path string, stdout, stderr io.Writer) error {
	depth := -1
	for i, s := range floorStages {
		if s == stage {
			depth = i
		}
	}
	if depth < 0 {
		return fmt.Errorf("unknown stage %q (want one of %s)", stage, strings.Join(floorStages, ", "))
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	out := bufio.NewWriterSize(stdout, 1<<16)
	var kw *keywordDFA
	if depth >= 3 {
		kw = newKeywordDFA(ruleKeywords())
	}
	var w jsonwalk.Walker
	v := &floorVisitor{kw: kw}
	r := lines.NewReader(f)
	for {
		line, err := r.Next()
		if len(line) > 0 && depth == 1 && gjson.ValidBytes(line) {
			v.strings++
		}
		if len(line) > 0 && depth >= 2 {
			// A line that is not JSON (a capture can keep some) is
			// passed over here as a real command would keep it.
			_, _, _ = w.Walk(line, v)
		}
		if len(line) > 0 && depth >= 4 {
			out.Write(line)
			out.WriteByte('\n')
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, lines.ErrTorn) {
			return err
		}
	}
	if _, err := fmt.Fprintf(stderr, "strings %d, decoded bytes %d, keyword hits %d\n", v.strings, v.bytes, v.hits); err != nil {
		return err
	}
	return out.Flush()
}

// floorVisitor decodes every string token and, with a DFA, searches it.
type floorVisitor struct {
	kw                   *keywordDFA
	strings, bytes, hits int
}

func (v *floorVisitor) Visit(_ *jsonwalk.Walker, t *jsonwalk.Token) error {
	if t.Kind != jsonwalk.String && t.Kind != jsonwalk.Key {
		return nil
	}
	text := t.Text()
	v.strings++
	v.bytes += len(text)
	if v.kw != nil {
		v.hits += v.kw.count(text)
	}
	return nil
}

// ruleKeywords is every keyword of every built-in rule, lower-cased.
func ruleKeywords() []string {
	seen := map[string]bool{}
	var kws []string
	for _, r := range redact.Rules() {
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			if k != "" && !seen[k] {
				seen[k] = true
				kws = append(kws, k)
			}
		}
	}
	return kws
}

// keywordDFA is an Aho–Corasick automaton compiled to a full transition
// table over ASCII-folded bytes: the scan is one table load per byte.
type keywordDFA struct {
	next []int32 // state*256 + byte → state
	out  []bool  // a keyword ends in this state
}

func newKeywordDFA(kws []string) *keywordDFA {
	// Trie first, as a goto table with -1 for "no edge".
	gotoT := [][256]int32{{}}
	for i := range gotoT[0] {
		gotoT[0][i] = -1
	}
	out := []bool{false}
	for _, k := range kws {
		s := int32(0)
		for i := 0; i < len(k); i++ {
			c := k[i]
			if gotoT[s][c] < 0 {
				var row [256]int32
				for j := range row {
					row[j] = -1
				}
				gotoT = append(gotoT, row)
				out = append(out, false)
				gotoT[s][c] = int32(len(gotoT) - 1)
			}
			s = gotoT[s][c]
		}
		out[s] = true
	}
	// Breadth-first failure links turn the trie into a DFA.
	n := len(gotoT)
	next := make([]int32, n*256)
	fail := make([]int32, n)
	queue := make([]int32, 0, n)
	for c := 0; c < 256; c++ {
		if t := gotoT[0][c]; t >= 0 {
			next[c] = t
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		out[s] = out[s] || out[fail[s]]
		for c := 0; c < 256; c++ {
			if t := gotoT[s][c]; t >= 0 {
				fail[t] = next[int(fail[s])*256+c]
				next[int(s)*256+c] = t
				queue = append(queue, t)
			} else {
				next[int(s)*256+c] = next[int(fail[s])*256+c]
			}
		}
	}
	// Fold ASCII upper case onto lower case.
	for s := 0; s < n; s++ {
		for c := 'A'; c <= 'Z'; c++ {
			next[s*256+int(c)] = next[s*256+int(c-'A'+'a')]
		}
	}
	return &keywordDFA{next: next, out: out}
}

// count returns how many keyword ends occur in text.
func (d *keywordDFA) count(text []byte) int {
	s, hits := int32(0), 0
	for _, c := range text {
		s = d.next[int(s)<<8|int(c)]
		if d.out[s] {
			hits++
		}
	}
	return hits
}
