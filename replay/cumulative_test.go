package replay_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/provider"
	registry "github.com/evcap/evcap/providers"
	"github.com/evcap/evcap/replay"
	"github.com/sebdah/goldie/v2"
	"github.com/tidwall/gjson"
)

// corpusLines reads a corpus file's lines (copies, so they outlive the read).
func corpusLines(t *testing.T, file string) [][]byte {
	t.Helper()
	var out [][]byte
	corpustest.EachLine(t, file, func(_ int64, line []byte) { out = append(out, bytes.Clone(line)) })
	return out
}

// deltaText is the text of a native text or thinking delta line, and
// whether the line is one.
func deltaText(line []byte) (string, bool) {
	if !gjson.ValidBytes(line) {
		return "", false
	}
	v := gjson.ParseBytes(line)
	switch {
	case v.Get("event.delta.type").String() == "text_delta":
		return v.Get("event.delta.text").String(), true
	case v.Get("event.delta.type").String() == "thinking_delta":
		return v.Get("event.delta.thinking").String(), true
	case v.Get("type").String() == "message" && v.Get("role").String() == "assistant" && v.Get("delta").Bool():
		return v.Get("content").String(), true
	case v.Get("type").String() == "message.part.delta":
		return v.Get("properties.delta").String(), true
	}
	return "", false
}

// TestCumulativeSynthetics keeps the normalizers' synthetic snapshot
// streams (normalize/<provider>/testdata/cumulative/synthetic-<capture>.jsonl)
// exactly what CumulativeLines makes of the real corpus capture they are
// named after; go test ./replay -run TestCumulativeSynthetics -update
// writes them. Each normalizer's tests check that reading its file with
// CumulativeDeltas gives the capture's own events.
func TestCumulativeSynthetics(t *testing.T) {
	corpus := corpustest.Dir(t)
	for _, c := range []struct{ provider, capture string }{
		{"claude", "tools-partial"},
		{"gemini", "tools"},
		{"opencode", "serve-tools"},
	} {
		t.Run(c.provider+"/"+c.capture, func(t *testing.T) {
			orig := corpusLines(t, filepath.Join(corpus, c.provider, c.capture+".stdout.jsonl"))
			got := replay.CumulativeLines(orig)
			if len(got) != len(orig) {
				t.Fatalf("CumulativeLines gave %d lines for %d", len(got), len(orig))
			}
			changed, grew := 0, 0
			for i := range orig {
				was, isDelta := deltaText(orig[i])
				now, _ := deltaText(got[i])
				if !isDelta {
					if !bytes.Equal(orig[i], got[i]) {
						t.Errorf("line %d is no text delta but was rewritten:\n%s\n%s", i+1, orig[i], got[i])
					}
					continue
				}
				if !gjson.ValidBytes(got[i]) {
					t.Fatalf("line %d rewritten to invalid JSON: %s", i+1, got[i])
				}
				// A snapshot ends with the piece it stands for.
				if !strings.HasSuffix(now, was) {
					t.Errorf("line %d: snapshot %q does not end with the piece %q", i+1, now, was)
				}
				if !bytes.Equal(orig[i], got[i]) {
					changed++
				}
				if len(now) > len(was) {
					grew++
				}
			}
			if changed == 0 || grew == 0 {
				t.Fatalf("no delta line became a longer snapshot (%d changed): the capture has no multi-delta block", changed)
			}
			g := goldie.New(t, goldie.WithFixtureDir(filepath.Join("..", "normalize", c.provider, "testdata", "cumulative")),
				goldie.WithNameSuffix(".jsonl"))
			g.Assert(t, "synthetic-"+c.capture, append(bytes.Join(got, []byte("\n")), '\n'))
		})
	}
}

// TestCumulativeLinesCodexUnchanged: a format without per-line deltas
// comes back byte for byte.
func TestCumulativeLinesCodexUnchanged(t *testing.T) {
	orig := corpusLines(t, filepath.Join(corpustest.Dir(t), "codex", "tools.stdout.jsonl"))
	got := replay.CumulativeLines(orig)
	if !bytes.Equal(bytes.Join(orig, nil), bytes.Join(got, nil)) {
		t.Fatal("codex lines were rewritten")
	}
}

// TestCumulativeLinesCodexLegacyUnchanged: Codex's legacy protocol streams
// agent_message_delta lines that its Deltas tracker reports as text pieces,
// but its normalizer cannot read snapshots (ReadsCumulative false), so the
// lines come back byte for byte instead of rewritten into snapshots the
// user's code never saw. Real recording: codex proto of @openai/codex
// 0.39.0 (providers/testdata/codex-0.39.0-proto).
func TestCumulativeLinesCodexLegacyUnchanged(t *testing.T) {
	orig := corpusLines(t, filepath.Join("..", "providers", "testdata", "codex-0.39.0-proto", "long-text.stdout.jsonl"))
	d, ok := registry.Lookup("codex")
	if !ok {
		t.Fatal("no codex descriptor")
	}
	if d.ReadsCumulative {
		t.Fatal("codex's descriptor says its normalizer reads snapshots; this test expects it not to")
	}
	tr, pieces := d.Deltas(), 0
	for _, l := range orig {
		for _, x := range tr.Line(l) {
			if x.Kind == provider.DeltaText && !x.Start {
				pieces++
			}
		}
	}
	if pieces < 2 {
		t.Fatalf("the sample has %d text pieces: nothing for the cumulative rewrite to leave alone", pieces)
	}
	got := replay.CumulativeLinesOf(d, orig)
	if !bytes.Equal(bytes.Join(orig, []byte("\n")), bytes.Join(got, []byte("\n"))) {
		t.Fatalf("codex legacy lines (%d text pieces) were rewritten", pieces)
	}
}
