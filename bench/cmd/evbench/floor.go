//go:build unix

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
//	          decoded string with internal/litdfa, the case-folding
//	          Aho–Corasick table scan's prefilter uses (one table lookup per
//	          byte)
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
	"unsafe"

	"github.com/evcap/evcap/internal/jsonwalk"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/internal/litdfa"
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
	var kw *litdfa.DFA
	if depth >= 3 {
		kw = litdfa.New(ruleKeywords())
	}
	var w jsonwalk.Walker
	v := &floorVisitor{kw: kw}
	if kw != nil {
		v.fired = make([]uint32, kw.NumOuts())
		v.found = v.count
	}
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

// floorVisitor decodes every string token and, with a DFA, searches it;
// hits counts the automaton's keyword states entered, once per string.
type floorVisitor struct {
	kw                   *litdfa.DFA
	fired                []uint32
	gen                  uint32
	found                func(int)
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
		v.gen++
		// A string view of the token's text, which Scan only reads: a
		// copy per string would be a cost no command pays.
		v.kw.Scan(unsafe.String(unsafe.SliceData(text), len(text)), 0, v.fired, v.gen, v.found)
	}
	return nil
}

func (v *floorVisitor) count(int) { v.hits++ }

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
