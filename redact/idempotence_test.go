package redact

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/internal/lines"
	"github.com/tidwall/gjson"
)

// corpusLines returns every line of the real corpus (stdout, requests and
// stderr files), for property tests and fuzz seeds.
func corpusLines(t testing.TB) [][]byte {
	t.Helper()
	files, err := filepath.Glob("../testdata/corpus/*/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	var out [][]byte
	for _, name := range files {
		if !strings.HasSuffix(name, ".jsonl") && !strings.HasSuffix(name, ".txt") {
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		lr := lines.NewReader(bufio.NewReader(f))
		for {
			line, err := lr.Next()
			if len(line) > 0 {
				out = append(out, bytes.Clone(line))
			}
			if err != nil {
				break
			}
		}
		f.Close()
	}
	return out
}

func corpusRedactor(t testing.TB) *Redactor {
	t.Helper()
	// The corpus was recorded under /tmp/realcli/runs/<cli>/<scenario>/
	// and the planted text names /root/projects/demo and /tmp/xyz.
	r, err := New(Options{Home: "/root", Project: "/root/projects/demo", Temp: []string{"/tmp/xyz", "/tmp/realcli"}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestIdempotentOnCorpus(t *testing.T) {
	r := corpusRedactor(t)
	changed, total := 0, 0
	rules := map[string]int{}
	for _, line := range corpusLines(t) {
		total++
		once, f := r.Line(line)
		if !bytes.Equal(once, line) {
			changed++
		}
		for _, x := range f {
			rules[x.Rule] += x.Count
		}
		if gjson.ValidBytes(line) && !gjson.ValidBytes(once) {
			t.Errorf("valid JSON became invalid:\n%s\n%s", line, once)
		}
		twice, f2 := r.Line(once)
		if !bytes.Equal(once, twice) || len(f2) != 0 {
			t.Errorf("not idempotent:\nonce:  %s\ntwice: %s\n%v", once, twice, f2)
		}
		if s := r.Scan(line); !equalFindings(s, f) {
			t.Errorf("Scan and Line disagree on %s: %v vs %v", line, s, f)
		}
		for _, leak := range []string{"sk-ant-api03-", "AKIADYBVZXG24", "/root/projects/demo", "/tmp/realcli/"} {
			if bytes.Contains(once, []byte(leak)) {
				t.Errorf("%q survived in %s", leak, once)
			}
		}
	}
	t.Logf("corpus: %d of %d lines changed; replacements per rule: %v", changed, total, rules)
}

func FuzzIdempotent(f *testing.F) {
	// Long lines make slow fuzz inputs; the property test above covers them.
	for _, line := range corpusLines(f) {
		if len(line) <= 4096 {
			f.Add(line)
		}
	}
	for _, p := range positives() {
		f.Add([]byte(p.text()))
		f.Add([]byte(jsonLine(map[string]any{"text": "a\n" + p.text()})))
	}
	for _, n := range negatives() {
		f.Add([]byte(n))
	}
	r := corpusRedactor(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		once, _ := r.Line(in)
		twice, f2 := r.Line(once)
		if !bytes.Equal(once, twice) {
			t.Fatalf("not idempotent:\n  in: %q\nonce: %q\ntwice: %q\n%v", in, once, twice, f2)
		}
		if gjson.ValidBytes(in) && !gjson.ValidBytes(once) {
			t.Fatalf("valid JSON became invalid: %q → %q", in, once)
		}
		// Chunks of the same text agree with Text on the whole.
		if len(in) > 3 {
			k := len(in) / 3
			parts := []string{string(in[:k]), string(in[k : 2*k]), string(in[2*k:])}
			var joined strings.Builder
			for _, c := range r.Chunks(parts) {
				joined.WriteString(c.Text)
			}
			whole, _ := r.Text(in)
			if joined.String() != string(whole) {
				t.Fatalf("chunks disagree with text: %q vs %q", joined.String(), whole)
			}
		}
	})
}
