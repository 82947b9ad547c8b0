package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportPromoteReplay: a stored session imported with evcap import is
// promoted and replayed like a live capture. Its native lines are stored
// entries, so promote and replay must read them with the history
// normalizer: the fixture says "restored", its normalized golden holds no
// unknown event, and replaying the fixture in every mode matches.
func TestImportPromoteReplay(t *testing.T) {
	sessions, err := filepath.Glob("../../history/testdata/corpus/*/*/history.jsonl")
	if err != nil || len(sessions) < 8 {
		t.Fatalf("found %d stored sessions (%v), want the history corpus", len(sessions), err)
	}
	for _, session := range sessions {
		scenario := filepath.Base(filepath.Dir(session))
		provider := filepath.Base(filepath.Dir(filepath.Dir(session)))
		t.Run(provider+"/"+scenario, func(t *testing.T) {
			dir := t.TempDir()
			capture := filepath.Join(dir, "import.jsonl")
			if _, errOut, code := runEvcap(t, nil, "import", "--provider", provider, session, "-o", capture); code != 0 {
				t.Fatalf("import: exit %d\n%s", code, errOut)
			}
			fixtures := filepath.Join(dir, "fixtures")
			if _, errOut, code := runEvcap(t, nil, "promote", capture, "--name", scenario, "--dir", fixtures); code != 0 {
				t.Fatalf("promote: exit %d\n%s", code, errOut)
			}
			fx := filepath.Join(fixtures, provider, scenario)
			doc, err := os.ReadFile(filepath.Join(fx, "fixture.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(doc), `"restored": true`) {
				t.Error(`fixture.json does not say "restored": true`)
			}
			golden, err := os.ReadFile(filepath.Join(fx, "golden", "normalized.golden"))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(golden), `"kind":"unknown"`); n > 0 {
				t.Errorf("normalized.golden holds %d unknown events: the stored entries were read as a live stream", n)
			}
			if !strings.Contains(string(golden), `"kind":"text"`) {
				t.Error("normalized.golden holds no text event")
			}
			if out, errOut, code := runEvcap(t, nil, "replay", fx); code != 0 {
				t.Fatalf("replay of the promoted import: exit %d\n%s%s", code, out, errOut)
			}
		})
	}
}
