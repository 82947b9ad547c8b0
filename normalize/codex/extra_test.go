package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// TestOlderVersionsTextsAndOutcome checks the recordings of older codex
// versions against their raw lines: every agent message of the raw stream
// is one completed text event, in order, with the same text; a run that
// exited 0 gets no failed result, and one that printed a fatal error
// (legacy or item_type "error" that is not a retry notice, or turn.failed)
// ends in exactly one failed result.
func TestOlderVersionsTextsAndOutcome(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(extraDir, "*", "*.stdout.jsonl"))
	if len(files) == 0 {
		t.Fatal("no recordings")
	}
	for _, path := range files {
		name := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data := read(t, path)
			var wantTexts []string
			fatal := false
			for _, l := range bytes.Split(data, []byte("\n")) {
				if !gjson.ValidBytes(l) {
					continue
				}
				v := gjson.ParseBytes(l)
				switch {
				case v.Get("msg.type").String() == "agent_message":
					wantTexts = append(wantTexts, v.Get("msg.message").String())
				case v.Get("item.type").String() == "agent_message" || v.Get("item.item_type").String() == "assistant_message":
					if strings.HasSuffix(v.Get("type").String(), "completed") {
						wantTexts = append(wantTexts, v.Get("item.text").String())
					}
				case v.Get("msg.type").String() == "error", v.Get("type").String() == "turn.failed":
					fatal = true
				case v.Get("type").String() == "error":
					if _, retry := parseRetry(v.Get("message").String()); !retry && formatOf(gjson.ParseBytes(data[:bytes.IndexByte(data, '\n')])) == formatItemType {
						fatal = true
					}
				}
			}
			var gotTexts []string
			failed := 0
			for _, e := range convert(data, 0) {
				switch {
				case e.Kind == event.KindText && e.Phase == event.PhaseCompleted:
					gotTexts = append(gotTexts, e.Text)
				case e.Kind == event.KindResult && e.Phase == event.PhaseFailed:
					failed++
				}
			}
			if len(wantTexts) == 0 && !fatal {
				t.Fatal("the recording has neither an agent message nor a fatal error: it tests nothing")
			}
			if d := cmp.Diff(wantTexts, gotTexts); d != "" {
				t.Errorf("texts differ from the raw agent messages (-raw +normalized):\n%s", d)
			}
			exit, _ := os.ReadFile(strings.TrimSuffix(path, ".stdout.jsonl") + ".exit")
			switch {
			case fatal && failed != 1:
				t.Errorf("fatal error in the stream, %d failed results; want 1", failed)
			case !fatal && failed != 0:
				t.Errorf("run without a fatal error (exit %s) got %d failed results", bytes.TrimSpace(exit), failed)
			}
		})
	}
}
