package history_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/history"
)

// importBytes imports a stored JSONL session held in memory.
func importBytes(t *testing.T, provider string, data []byte) ([]byte, history.Stats) {
	t.Helper()
	var out bytes.Buffer
	st, err := history.Import(context.Background(), history.ReaderEntries(bytes.NewReader(data), "test", provider), &out,
		history.Options{Provider: provider, CaptureID: "01JDX0000000000000000000AA", EvcapVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), st
}

func nonBlankLines(b []byte) int {
	n := 0
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			n++
		}
	}
	return n
}

func TestImportLosesNoEntry(t *testing.T) {
	tools, err := os.ReadFile(filepath.Join(corpus, "claude", "tools", "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	codexTools, err := os.ReadFile(filepath.Join(corpus, "codex", "tools", "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.LastIndex(codexTools[:len(codexTools)/2], []byte("\n")) + 1
	for _, tc := range []struct {
		name, provider string
		data           []byte
		torn           bool
		reason         string
	}{
		{"two sessions in one file", "claude", append(append([]byte(nil), tools...), tools...), false,
			"a resumed session appends its turns to the same file: several prompts, several turns"},
		{"synthetic torn last line", "claude", tools[:len(tools)-40], true,
			"the CLI was killed while writing its last line"},
		{"synthetic cut rollout", "codex", codexTools[:cut], false,
			"an aborted Codex run: the rollout stops mid-turn"},
		{"short session", "gemini", mustRead(t, filepath.Join(corpus, "gemini", "error-retry", "history.jsonl")), false,
			"fewer entries than Import reads ahead, none naming a working directory"},
		{"synthetic blank lines", "gemini", []byte("\n" + strings.ReplaceAll(string(mustRead(t, filepath.Join(corpus, "gemini", "tools", "history.jsonl"))), "\n", "\n\n")), false,
			"blank lines are no entries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			capt, st := importBytes(t, tc.provider, tc.data)
			want := int64(nonBlankLines(tc.data))
			if st.Entries != want || st.Native != want {
				t.Errorf("%s: %d stored entries, Import read %d and wrote %d native_in records", tc.reason, want, st.Entries, st.Native)
			}
			if st.Torn != tc.torn {
				t.Errorf("torn %v, want %v", st.Torn, tc.torn)
			}
			native := int64(bytes.Count(capt, []byte(`"stage":"native_in"`)))
			if native != want {
				t.Errorf("the capture holds %d native_in records, want %d", native, want)
			}
		})
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestImportKeepsStoredOrderAndTimes(t *testing.T) {
	data := mustRead(t, filepath.Join(corpus, "codex", "tools", "history.jsonl"))
	capt, _ := importBytes(t, "codex", data)
	var natives []*envelope.Record
	rd := envelope.NewReader(bytes.NewReader(capt), "import", envelope.ReaderOptions{})
	for {
		rec, err := rd.Next()
		if err != nil {
			break
		}
		if rec.Stage == envelope.StageNativeIn {
			natives = append(natives, rec)
		}
	}
	stored := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(natives) != len(stored) {
		t.Fatalf("%d native records for %d entries", len(natives), len(stored))
	}
	prev := int64(0)
	for i, rec := range natives {
		if rec.Sequence <= prev {
			t.Errorf("record %d: sequence %d after %d", i, rec.Sequence, prev)
		}
		prev = rec.Sequence
		if !bytes.Equal(rec.Payload, stored[i]) {
			t.Errorf("entry %d: payload is not the stored line", i+1)
		}
		ts, err := time.Parse(time.RFC3339Nano, string(envelopeTS(stored[i])))
		if err != nil {
			t.Fatal(err)
		}
		if rec.Timestamp != envelope.FormatTimestamp(ts) {
			t.Errorf("entry %d: timestamp %s, stored %s", i+1, rec.Timestamp, ts)
		}
	}
}

func envelopeTS(line []byte) []byte {
	i := bytes.Index(line, []byte(`"timestamp":"`))
	rest := line[i+len(`"timestamp":"`):]
	return rest[:bytes.IndexByte(rest, '"')]
}

func TestImportIsDeterministic(t *testing.T) {
	data := mustRead(t, filepath.Join(corpus, "gemini", "tools", "history.jsonl"))
	a, _ := importBytes(t, "gemini", data)
	b, _ := importBytes(t, "gemini", data)
	if !bytes.Equal(a, b) {
		t.Error("two imports of the same session differ")
	}
}

func TestOpenDetectsProvider(t *testing.T) {
	for _, p := range history.Providers() {
		name := "history.jsonl"
		if p == "opencode" {
			name = "opencode.db"
		}
		op, err := history.Open(context.Background(), history.Target{Path: filepath.Join(corpus, p, "tools", name)})
		if err != nil {
			t.Fatal(err)
		}
		op.Entries.Close()
		if op.Provider != p {
			t.Errorf("%s: detected %q", p, op.Provider)
		}
	}
}

func TestLocate(t *testing.T) {
	home := t.TempDir()
	for _, f := range []struct{ provider, path, id string }{
		{"claude", ".claude/projects/-tmp-x/af472bcf-b017-48db-b316-f843af91d5f8.jsonl", "af472bcf"},
		{"codex", ".codex/sessions/2026/12/01/rollout-2026-12-01T09-00-27-01a230d5-7ddc-76c0-83e9-625d57ec4b0b.jsonl", "01a230d5"},
		{"gemini", ".gemini/tmp/project/chats/session-2026-12-01T09-05-298a47c8.jsonl", "298a47c8-2442"},
		{"opencode", ".local/share/opencode/opencode.db", ""},
	} {
		src := filepath.Join(corpus, f.provider, "tools", "history.jsonl")
		if f.provider == "opencode" {
			src = filepath.Join(corpus, f.provider, "tools", "opencode.db")
		}
		dst := filepath.Join(home, f.path)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, mustRead(t, src), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := history.Locate(f.provider, f.id, history.Env{Home: home, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Errorf("%s: %v", f.provider, err)
			continue
		}
		if got != dst {
			t.Errorf("%s: located %s, want %s", f.provider, got, dst)
		}
		if f.id != "" {
			if _, err := history.Locate(f.provider, "ffffffff", history.Env{Home: home}); err == nil {
				t.Errorf("%s: an unknown id was found", f.provider)
			}
		}
	}
}
