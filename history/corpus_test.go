package history_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/history"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/normalize/codex"
	"github.com/evcap/evcap/normalize/gemini"
	"github.com/evcap/evcap/normalize/opencode"
	"github.com/evcap/evcap/render/groups"
	"github.com/evcap/evcap/schema"
	"github.com/tidwall/gjson"
)

// corpus holds the stored sessions of real runs of the pinned CLIs next to
// what the same run printed live (copied from the shared corpus).
const corpus = "testdata/corpus"

func liveNormalizer(provider string) event.Normalizer {
	switch provider {
	case "claude":
		return claude.New()
	case "codex":
		return codex.New()
	case "gemini":
		return gemini.New()
	}
	return opencode.New()
}

// corpusRuns lists <provider>/<scenario> directories of the corpus.
func corpusRuns(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(corpus, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			out = append(out, d)
		}
	}
	if len(out) < 10 {
		t.Fatalf("corpus has %d runs, want at least 10 (all four CLIs)", len(out))
	}
	return out
}

// openStored opens the stored session of a corpus run.
func openStored(t *testing.T, dir, provider string) history.Entries {
	t.Helper()
	if provider == "opencode" {
		src, err := history.OpenDB(context.Background(), filepath.Join(dir, "opencode.db"), "")
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
	src, err := history.OpenFile(filepath.Join(dir, "history.jsonl"), provider)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func importRun(t *testing.T, dir, provider string) ([]byte, history.Stats) {
	t.Helper()
	src := openStored(t, dir, provider)
	defer src.Close()
	var buf bytes.Buffer
	st, err := history.Import(context.Background(), src, &buf, history.Options{Provider: provider,
		CaptureID: "01JDX0000000000000000000AA", EvcapVersion: "test"})
	if err != nil {
		t.Fatalf("import %s: %v", dir, err)
	}
	return buf.Bytes(), st
}

// knownDifference pins the differences between a live run and its stored
// session that the CLI itself makes, so that the comparison is seen to
// catch them and any other difference still fails.
var knownDifference = map[string]func(*history.Difference) bool{
	// Gemini CLI 0.61.0 drops the zero-width joiners (U+200D) of the
	// answer when it stores it: the ZWJ family emoji comes back as four
	// people. The rest of the text is the same.
	"gemini/long-text": func(d *history.Difference) bool {
		return d.Block == 1 && d.What == "text" && strings.Contains(d.Live, "\u200d") &&
			strings.ReplaceAll(d.Live, "\u200d", "") == d.Restored
	},
}

func TestCorpusImportValidatesAndMatchesLive(t *testing.T) {
	sch, err := schema.Compile("envelope.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range corpusRuns(t) {
		provider := filepath.Base(filepath.Dir(dir))
		t.Run(provider+"/"+filepath.Base(dir), func(t *testing.T) {
			capt, st := importRun(t, dir, provider)
			if n := storedCount(t, dir, provider); st.Entries != n {
				t.Errorf("the stored session has %d entries, Import read %d", n, st.Entries)
			}
			if st.Entries == 0 || st.Native != st.Entries {
				t.Fatalf("entries %d, native records %d: want as many records as entries, and some", st.Entries, st.Native)
			}
			if st.Unknown != 0 {
				t.Errorf("%d unknown events", st.Unknown)
			}
			rd := envelope.NewReader(bytes.NewReader(capt), dir, envelope.ReaderOptions{})
			n := 0
			for {
				rec, err := rd.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				n++
				if rec.Source != history.Source {
					t.Errorf("sequence %d: source %q, want %q", rec.Sequence, rec.Source, history.Source)
				}
			}
			for i, line := range bytes.Split(bytes.TrimSuffix(capt, []byte("\n")), []byte("\n")) {
				if err := sch.Validate(line); err != nil {
					t.Fatalf("record %d does not validate: %v", i+1, err)
				}
			}
			if int64(n) != st.Records {
				t.Errorf("read %d records, Import said %d", n, st.Records)
			}
			restored, err := history.Fold(bytes.NewReader(capt), "import")
			if err != nil {
				t.Fatal(err)
			}
			lf, err := os.Open(filepath.Join(dir, "live.stdout.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer lf.Close()
			evs, err := event.ReadAll(lf, liveNormalizer(provider))
			if err != nil {
				t.Fatal(err)
			}
			acc := groups.New()
			for _, e := range evs {
				acc.Add(e)
			}
			// The corpus rewrote the run paths of a few live outputs to
			// another scratch prefix than their stored sessions' (in
			// pieces of streamed tool input, too); undo that first.
			for _, m := range acc.Run().Messages {
				for _, b := range m.Blocks {
					if b.Tool != nil {
						b.Tool.Summary = strings.ReplaceAll(b.Tool.Summary, "/tmp/clis/runs/", "/tmp/realcli/runs/")
					}
				}
			}
			d := history.Compare(acc.Run(), restored, history.CompareOptions{})
			if known := knownDifference[provider+"/"+filepath.Base(dir)]; known != nil {
				if d == nil || !known(d) {
					t.Fatalf("want the known difference of this run, got %v", d)
				}
				return
			}
			if d != nil {
				var a, b bytes.Buffer
				acc.Run().WriteJSON(&a)
				restored.WriteJSON(&b)
				t.Errorf("%v\nlive:\n%s\nrestored:\n%s", d, a.String(), b.String())
			}
		})
	}
}

// storedCount counts a corpus run's stored entries: lines, or the
// messages of opencode's (only) session.
func storedCount(t *testing.T, dir, provider string) int64 {
	t.Helper()
	if provider != "opencode" {
		return int64(nonBlankLines(mustRead(t, filepath.Join(dir, "history.jsonl"))))
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "opencode.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow(`SELECT count(*) FROM message`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestImportNamesTheSessionsCwd: the capture.start of every imported
// corpus session names the working directory its live run printed
// (Claude's system/init cwd, opencode's session directory), read where
// the provider's descriptor says the CLI stores it; Gemini CLI stores
// none, so its captures name none.
func TestImportNamesTheSessionsCwd(t *testing.T) {
	named := 0
	for _, dir := range corpusRuns(t) {
		provider := filepath.Base(filepath.Dir(dir))
		out, _ := importRun(t, dir, provider)
		first, _, _ := bytes.Cut(out, []byte("\n"))
		got := gjson.GetBytes(first, "payload.cwd").String()
		want := "/tmp/realcli/runs/" + provider + "/" + filepath.Base(dir) + "/project"
		if provider == "gemini" {
			want = ""
		}
		if got != want {
			t.Errorf("%s: capture.start cwd %q, want %q", dir, got, want)
		}
		if got != "" {
			named++
		}
	}
	if named < 9 {
		t.Fatalf("only %d imported sessions named a cwd", named)
	}
}
