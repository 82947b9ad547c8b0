package history_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/evcap/evcap/envelope"
	"github.com/sebdah/goldie/v2"
)

// TestHistoryEventsGolden pins the normalized events each history
// normalizer derives from the stored tools session (three model turns,
// two tool calls), one JSON line per event with the sequence numbers of
// the stored entries it came from. Regenerate with go test ./history -update.
func TestHistoryEventsGolden(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata/golden"), goldie.WithNameSuffix(".events.golden"))
	for _, p := range []string{"claude", "codex", "gemini", "opencode"} {
		t.Run(p, func(t *testing.T) {
			capt, _ := importRun(t, filepath.Join(corpus, p, "tools"), p)
			var out bytes.Buffer
			rd := envelope.NewReader(bytes.NewReader(capt), p, envelope.ReaderOptions{})
			for {
				rec, err := rd.Next()
				if err != nil {
					break
				}
				if rec.Stage != envelope.StageNormalizedOut {
					continue
				}
				var ev map[string]any
				if err := json.Unmarshal(rec.Payload, &ev); err != nil {
					t.Fatal(err)
				}
				delete(ev, "sessionId") // the same on every line; the init line keeps it
				if ev["kind"] == "init" {
					ev["sessionId"] = rec.SessionID
				}
				if tool, ok := ev["tool"].(map[string]any); ok {
					delete(tool, "input") // raw arguments; the summary is what renders
				}
				b, _ := json.Marshal(map[string]any{"cause": rec.Cause, "event": ev})
				out.Write(b)
				out.WriteByte('\n')
			}
			g.Assert(t, p+"-tools", out.Bytes())
		})
	}
}
