package main

import (
	"github.com/evcap/evcap/internal/corpustest"
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
	corpustest.Heavy(t)
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

// TestPromoteRestored: promote --restored keeps the imported stored
// session of the same run inside the live fixture (restored/, with its own
// goldens and "restored": true), and replaying the fixture checks that the
// restored session shows what the live run showed. A restored session
// that lost its answer text makes that check fail, naming the difference.
func TestPromoteRestored(t *testing.T) {
	t.Parallel()
	corpus := "../../history/testdata/corpus/claude/long-text"
	dir := t.TempDir()
	live, restored := filepath.Join(dir, "live.jsonl"), filepath.Join(dir, "restored.jsonl")
	liveStdout, err := os.ReadFile(filepath.Join(corpus, "live.stdout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runEvcap(t, liveStdout, "record", "--stdin", "--render", "none", "-o", live); code != 0 {
		t.Fatalf("record --stdin: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := runEvcap(t, nil, "import", "--provider", "claude", filepath.Join(corpus, "history.jsonl"), "-o", restored); code != 0 {
		t.Fatalf("import: exit %d\n%s", code, errOut)
	}
	fixtures := filepath.Join(dir, "fixtures")
	out, errOut, code := runEvcap(t, nil, "promote", live, "--name", "long-text", "--dir", fixtures, "--restored", restored)
	if code != 0 {
		t.Fatalf("promote --restored: exit %d\n%s%s", code, out, errOut)
	}
	fx := filepath.Join(fixtures, "claude", "long-text")
	doc, err := os.ReadFile(filepath.Join(fx, "restored", "fixture.json"))
	if err != nil {
		t.Fatalf("no restored fixture: %v\n%s", err, out)
	}
	if !strings.Contains(string(doc), `"restored": true`) {
		t.Error(`restored/fixture.json does not say "restored": true`)
	}
	out, errOut, code = runEvcap(t, nil, "replay", fx)
	if code != 0 || !strings.Contains(out, "(restored): ok") {
		t.Fatalf("replay: exit %d, want the restored check ok\n%s%s", code, out, errOut)
	}

	// The restore path loses the answer: the check must fail and say where.
	broken := strings.ReplaceAll(string(doc), "Here is", "Hers is")
	if broken == string(doc) {
		t.Fatal("the restored fixture holds no \"Here is\" to break")
	}
	if err := os.WriteFile(filepath.Join(fx, "restored", "fixture.json"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code = runEvcap(t, nil, "replay", "--json", fx)
	if code != 1 || !strings.Contains(out, "\"check\": \"restored\",\n      \"status\": \"mismatch\"") ||
		!strings.Contains(out, "differ at block 1, text") {
		t.Fatalf("replay of a restored session that lost its text: exit %d, want 1 and a restored mismatch\n%.3000s", code, out)
	}
}
