package gen_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/sanitize"
)

// Machine paths written into the generated runs.
const (
	home    = "/home/quality"
	project = "/home/quality/src/app"
	temp    = "/tmp"
)

// qualitySizes are big enough for every rule to be planted in every form
// the provider supports (checked below, so a smaller run fails loudly).
var qualitySizes = map[string]int64{"claude": 6 << 20, "codex": 600 << 10, "opencode": 900 << 10, "gemini": 2 << 20}

// toCapture wraps raw CLI output into native_in records, as evcap record
// would without redaction.
func toCapture(t *testing.T, raw []byte, provider string) []byte {
	t.Helper()
	var out bytes.Buffer
	w := envelope.NewWriter(&out, envelope.WriterOptions{CaptureID: "01KQ0000000000000000000000", FlushInterval: -1})
	c := capture.New(w, capture.Options{Provider: provider})
	c.Begin(capture.Start{EvcapVersion: "bench", Provider: provider})
	lr := lines.NewReader(bytes.NewReader(raw))
	for {
		line, err := lr.Next()
		if err != nil {
			break
		}
		c.Native(line)
	}
	zero := 0
	if err := c.Close(capture.End{ExitCode: &zero, CleanEnd: true}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// fragments are the pieces of a planted value that must not survive: the
// value itself and, for split secrets, each part of a delta that belongs
// to the value and is long enough (8 bytes) not to occur by chance.
func fragments(p gen.Planted) []string {
	out := strings.Split(p.Value, "\n") // private keys: each base64 line
	if p.Form != gen.FormSplit {
		return out
	}
	at := strings.Index(p.Text, p.Value)
	off := 0
	for _, piece := range p.Pieces {
		s, e := max(off, at), min(off+len(piece), at+len(p.Value))
		if e-s >= 8 {
			out = append(out, p.Text[s:e])
		}
		off += len(piece)
	}
	return out
}

// TestSanitizeRecall plants every rule in every form the provider allows
// and checks that sanitize leaves no fragment of any of them, names each
// rule in a replacement token, and leaves every negative value alone.
func TestSanitizeRecall(t *testing.T) {
	corpustest.Heavy(t) // .ci/after-heavy.sh runs it without -race
	for _, provider := range gen.Providers() {
		t.Run(provider, func(t *testing.T) {
			var raw bytes.Buffer
			st, err := gen.Write(&raw, gen.Options{Provider: provider, Size: qualitySizes[provider], Seed: 7,
				SecretEvery: 1, ToolOutput: 1024, Home: home, Project: project, Temp: temp})
			if err != nil {
				t.Fatal(err)
			}
			forms := []string{gen.FormWhole, gen.FormEscaped}
			if provider == "claude" || provider == "gemini" {
				forms = append(forms, gen.FormSplit)
			}
			planted := map[string]int{}
			for _, p := range st.Planted {
				planted[p.Rule+"/"+p.Form]++
			}
			for _, rule := range gen.Rules() {
				for _, form := range forms {
					if rule == "private-key-block" && form == gen.FormSplit {
						continue
					}
					if planted[rule+"/"+form] == 0 {
						t.Errorf("generator planted no %s secret in form %s (%d turns): raise the size", rule, form, st.Turns)
					}
				}
			}

			var out bytes.Buffer
			_, err = sanitize.Sanitize(bytes.NewReader(toCapture(t, raw.Bytes(), provider)), provider, &out,
				sanitize.Options{Home: home, Project: project, Temp: []string{temp}})
			if err != nil {
				t.Fatal(err)
			}
			got := out.Bytes()
			missed := map[string]int{}
			for _, p := range st.Planted {
				for _, f := range fragments(p) {
					if bytes.Contains(got, []byte(f)) {
						missed[p.Rule+"/"+p.Form]++
						t.Errorf("%s secret (%s, turn %d): %q survives sanitize", p.Rule, p.Form, p.Turn, f)
						break
					}
				}
			}
			for _, rule := range gen.Rules() {
				if !bytes.Contains(got, []byte("[REDACTED:"+rule+"]")) {
					t.Errorf("no [REDACTED:%s] token in the output: the secrets were removed under another rule's name", rule)
				}
			}
			for key, n := range planted {
				t.Logf("%-36s planted %3d  recall %3d/%d", key, n, n-missed[key], n)
			}
			for i, neg := range st.Negatives {
				if gen.NegativeKinds()[i%len(gen.NegativeKinds())] == "base64-image" {
					// replaced as binary by design; the image's base64 must be gone
					// but its markdown around it kept.
					if !bytes.Contains(got, []byte(";base64,[BINARY:image/png")) {
						t.Errorf("base64 image not replaced by a [BINARY:image/png…] token after its data: prefix")
					}
					continue
				}
				enc := envelope.AppendJSONString(nil, neg)
				if !bytes.Contains(got, enc[1:len(enc)-1]) {
					t.Errorf("negative value was changed by sanitize: %s", neg)
				}
			}
		})
	}
}

// TestRedactLineRecall checks the per-line redaction evcap record applies
// while recording: every whole and escaped secret is gone from its line.
// Split secrets are not checked here: a line holds only one delta, which is
// why sanitize redacts per block (TestSanitizeRecall).
func TestRedactLineRecall(t *testing.T) {
	corpustest.Heavy(t) // .ci/after-heavy.sh runs it without -race
	red, err := redact.New(redact.Options{Home: home, Project: project, Temp: []string{temp}})
	if err != nil {
		t.Fatal(err)
	}
	for _, provider := range gen.Providers() {
		var raw bytes.Buffer
		st, err := gen.Write(&raw, gen.Options{Provider: provider, Size: qualitySizes[provider], Seed: 11,
			SecretEvery: 1, ToolOutput: 1024, Home: home, Project: project, Temp: temp})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		lr := lines.NewReader(&raw)
		for {
			line, err := lr.Next()
			if err != nil {
				break
			}
			r, _ := red.Line(line)
			out.Write(r)
			out.WriteByte('\n')
		}
		n := 0
		for _, p := range st.Planted {
			if p.Form == gen.FormSplit {
				continue
			}
			n++
			for _, f := range fragments(p) {
				if bytes.Contains(out.Bytes(), []byte(f)) {
					t.Errorf("%s: %s secret (%s): %q survives redact.Line", provider, p.Rule, p.Form, f)
				}
			}
		}
		if n < len(gen.Rules()) {
			t.Errorf("%s: only %d whole or escaped secrets planted", provider, n)
		}
	}
}

// TestNegativesNotRedacted runs each negative value through the redactor
// alone, as JSON string and as text: no rule may fire.
func TestNegativesNotRedacted(t *testing.T) {
	red, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	st, err := gen.Write(&raw, gen.Options{Provider: "codex", Size: 200 << 10, Seed: 3, SecretEvery: 1, ToolOutput: 512})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	binary := 0
	for i, neg := range st.Negatives {
		kind := gen.NegativeKinds()[i%len(gen.NegativeKinds())]
		kinds[kind]++
		line := fmt.Appendf(nil, `{"type":"tool_result","output":%s}`, envelope.AppendJSONString(nil, "out:\n"+neg+"\n"))
		_, fs1 := red.Line(line)
		_, fs2 := red.Text([]byte(neg))
		for _, f := range append(fs1, fs2...) {
			if kind == "base64-image" && f.Rule == redact.RuleBinary {
				// By design: redact replaces inline binaries (images
				// included) with a [BINARY:…] token; that is no secret
				// finding, and TestSanitizeRecall checks it is the only
				// change.
				binary++
				continue
			}
			t.Errorf("%s %q: redacted by %s", kind, neg, f.Rule)
		}
	}
	t.Logf("%d base64 images replaced as binary (not secret findings)", binary)
	for _, k := range gen.NegativeKinds() {
		if kinds[k] == 0 {
			t.Errorf("no negative of kind %s generated", k)
		}
	}
}
