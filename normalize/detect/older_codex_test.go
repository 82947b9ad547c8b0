package detect_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/normalize/detect"
)

// TestOlderCodexRecordings: the recordings of older codex versions are
// told as codex in the protocol each version printed, from their first 1,
// 2 and 3 lines, and no line of them is attributed to another provider.
func TestOlderCodexRecordings(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus-extra/codex/*/*.stdout.jsonl")
	if len(files) < 20 {
		t.Fatalf("only %d recordings of older codex versions", len(files))
	}
	seen := map[string]int{}
	for _, file := range files {
		version := filepath.Base(filepath.Dir(file))
		want := detect.Match{Provider: detect.Codex, Format: detect.FormatExecJSONLegacy}
		switch {
		case strings.Contains(file, "experimental-json"):
			want.Format = detect.FormatExecJSONItemType
		case version == "0.44.0", version == "0.45.0":
			want.Format = detect.FormatExecJSON
		}
		seen[want.Format]++
		all := readLines(t, file, -1)
		for n := 1; n <= 3 && n <= len(all); n++ {
			if got, ok := detect.Detect(all[:n]); !ok || got != want {
				t.Errorf("%s first %d lines: got %+v %v, want %+v", file, n, got, ok, want)
			}
		}
		for i, line := range all {
			if got, ok := detect.Line(line); ok && got.Provider != detect.Codex {
				t.Errorf("%s:%d: got %+v", file, i+1, got)
			}
		}
	}
	for _, f := range []string{detect.FormatExecJSONLegacy, detect.FormatExecJSONItemType, detect.FormatExecJSON} {
		if seen[f] == 0 {
			t.Errorf("no recording in format %s", f)
		}
	}
}

func TestCodexLegacyLines(t *testing.T) {
	for _, c := range []struct{ reason, line, format string }{
		{"legacy event", `{"id":"0","msg":{"type":"task_started","model_context_window":272000}}`, detect.FormatExecJSONLegacy},
		{"legacy config summary", `{"model":"gpt-5.5","sandbox":"danger-full-access","approval":"never","workdir":"/w","provider":"fake"}`, detect.FormatExecJSONLegacy},
		{"item_type session", `{"type":"session.created","session_id":"01a23118-8fa0-7111-afc5-d5ca350aa41c"}`, detect.FormatExecJSONItemType},
		{"item_type item", `{"type":"item.completed","item":{"id":"item_1","item_type":"assistant_message","text":"hi"}}`, detect.FormatExecJSONItemType},
	} {
		m, ok := detect.Line([]byte(c.line))
		if !ok || m != (detect.Match{Provider: detect.Codex, Format: c.format}) {
			t.Errorf("%s: got %+v %v, want codex %s", c.reason, m, ok, c.format)
		}
	}
}
