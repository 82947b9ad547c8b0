package chat

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/normalize/codex"
	"github.com/evcap/evcap/normalize/gemini"
	"github.com/evcap/evcap/normalize/opencode"
	"github.com/sebdah/goldie/v2"
)

const corpusDir = "../../testdata/corpus"

// linePace is the synthetic time between two native lines of a capture:
// the raw corpus files carry no reliable clock, so line n happens at
// n×linePace. It is short enough that the rate limiter has work to do.
const linePace = 150 * time.Millisecond

var normalizers = map[string]func() event.Normalizer{
	"claude":   func() event.Normalizer { return claude.New() },
	"codex":    func() event.Normalizer { return codex.New() },
	"gemini":   func() event.Normalizer { return gemini.New() },
	"opencode": func() event.Normalizer { return opencode.New() },
}

func corpusCaptures(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"*/*.stdout.jsonl", "opencode/*.sse.txt"} {
		m, err := filepath.Glob(filepath.Join(corpusDir, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("found %d corpus captures under %s, want at least 20", len(files), corpusDir)
	}
	return files
}

// renderCapture normalizes a capture line by line and feeds each event to a
// Message at its line's synthetic time; the run closes one pace after the
// last line.
func renderCapture(t *testing.T, file string) []Op {
	t.Helper()
	n := normalizers[filepath.Base(filepath.Dir(file))]()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := New(Options{})
	var ops []Op
	r := lines.NewReader(f)
	for {
		line, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, lines.ErrTorn) {
			t.Fatalf("%s: %v", file, err)
		}
		at := t0.Add(time.Duration(r.Line()) * linePace)
		for _, e := range n.Line(r.Line(), line) {
			ops = append(ops, m.Handle(at, e)...)
		}
	}
	end := t0.Add(time.Duration(r.Line()+1) * linePace)
	for _, e := range n.End() {
		ops = append(ops, m.Handle(end, e)...)
	}
	return append(ops, m.Close(end)...)
}

func TestCorpusGoldens(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata/corpus"), goldie.WithNameSuffix(".chat.golden"))
	for _, file := range corpusCaptures(t) {
		name := filepath.Base(filepath.Dir(file)) + "/" +
			strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".stdout.jsonl"), ".txt")
		t.Run(name, func(t *testing.T) {
			ops := renderCapture(t, file)
			checkOps(t, ops, DefaultInterval)
			var b bytes.Buffer
			if err := WriteJSONL(&b, ops); err != nil {
				t.Fatal(err)
			}
			g.Assert(t, name, b.Bytes())
		})
	}
}

// checkOps asserts the invariants of any operation sequence: one send
// first, edits at least an interval apart, times not going backwards, and
// exactly one final op, last.
func checkOps(t *testing.T, ops []Op, interval time.Duration) {
	t.Helper()
	if len(ops) == 0 || ops[0].Kind != OpSend {
		t.Fatalf("first op is not a send: %v", brief(ops))
	}
	var lastEdit time.Duration = -1
	for i, op := range ops {
		if i > 0 && op.Kind == OpSend {
			t.Errorf("op %d: a second send", i)
		}
		if i > 0 && op.At < ops[i-1].At {
			t.Errorf("op %d: time goes back (%v after %v)", i, op.At, ops[i-1].At)
		}
		if op.Kind == OpEdit {
			if lastEdit >= 0 && op.At-lastEdit < interval {
				t.Errorf("op %d: edit %v after the previous one, less than %v", i, op.At-lastEdit, interval)
			}
			lastEdit = op.At
		}
		if op.Final != (i == len(ops)-1) {
			t.Errorf("op %d: final=%v, want the last op (only) final", i, op.Final)
		}
	}
}
