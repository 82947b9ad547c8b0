package providers_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
)

// judged is one line's verdict of CaptureDeltas, or of a provider's own
// tracker, in a form to compare.
func judged(ended []string, piece provider.Delta, ok bool) string {
	if !ok {
		return fmt.Sprint(ended)
	}
	return fmt.Sprint(ended, piece.Block, piece.Path, piece.Kind, piece.Text)
}

// ownVerdicts feeds the lines to a fresh tracker of d, as CaptureDeltas
// picks a piece: the first that is not a Start and lies at its path.
func ownVerdicts(d provider.Descriptor, lines [][]byte) []string {
	tr := d.Deltas()
	var out []string
	for _, line := range lines {
		pieces := tr.Line(line)
		var piece provider.Delta
		ok := false
		for _, p := range pieces {
			if p.Start {
				continue
			}
			piece, ok = p, p.Offset == 0
			break
		}
		out = append(out, judged(slices.Clone(tr.Ended()), piece, ok))
	}
	return out
}

// captureVerdicts feeds the lines to one CaptureDeltas as lines of the
// named provider, each line and the name in a buffer overwritten after
// the call, as a reader that reuses its buffers gives them.
func captureVerdicts(name string, lines [][]byte) []string {
	var c providers.CaptureDeltas
	var buf []byte
	var out []string
	for _, line := range lines {
		// The name after the line, so that it lies somewhere else in
		// the buffer each time.
		buf = append(append(buf[:0], line...), name...)
		view := unsafe.String(&buf[len(line)], len(name)) // not a copy
		got := c.Line(view, buf[:len(line)], false)
		var ended []string
		for _, b := range got.Ended {
			if b.Provider != name {
				ended = append(ended, "from "+b.Provider)
			}
			ended = append(ended, b.Block)
		}
		if got.OK && got.Provider != name {
			ended = append(ended, "piece from "+got.Provider)
		}
		out = append(out, judged(ended, got.Piece, got.OK))
		for i := range buf {
			buf[i] = 'x' // what the caller's next line would leave there
		}
	}
	return out
}

// TestCaptureDeltasFollowsEachProvider: on every corpus stream,
// CaptureDeltas gives each line the ends and the piece the provider's own
// tracker gives, though the name and the line it is handed are views of a
// buffer rewritten after each call.
func TestCaptureDeltasFollowsEachProvider(t *testing.T) {
	pieces := 0
	for _, file := range corpustest.NativeFiles(t) {
		name := corpustest.Provider(file)
		d, ok := providers.Lookup(name)
		if !ok {
			t.Fatalf("%s: no provider %q", file, name)
		}
		var lines [][]byte
		corpustest.EachLine(t, file, func(_ int64, line []byte) { lines = append(lines, slices.Clone(line)) })
		want, got := ownVerdicts(d, lines), captureVerdicts(name, lines)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s:%d:\n got %.300s\nwant %.300s", file, i+1, got[i], want[i])
			}
			if want[i] != "[]" {
				pieces++
			}
		}
	}
	if pieces < 500 {
		t.Fatalf("only %d lines with a piece or an end", pieces)
	}
}

// TestCaptureDeltasUnknownProvider: a line of a provider the registry
// does not know ("" before a live stream is detected) is judged by every
// provider's tracker: a Claude stream's pieces are found, and said to be
// Claude's.
func TestCaptureDeltasUnknownProvider(t *testing.T) {
	var c providers.CaptureDeltas
	found := 0
	corpustest.EachLine(t, "../testdata/corpus/claude/tools-partial.stdout.jsonl", func(_ int64, line []byte) {
		got := c.Line("", line, false)
		if got.OK {
			found++
			if got.Provider != "claude" {
				t.Fatalf("a piece from %q", got.Provider)
			}
		}
	})
	if found < 10 {
		t.Fatalf("%d pieces found", found)
	}
}

// TestDeclaredProject: the working directory a record declares, where
// each provider's lines name it (the real Claude and opencode lines of
// the corpus), and capture.start's; a relative path declares none.
func TestDeclaredProject(t *testing.T) {
	first := func(file, contains string) []byte {
		var line []byte
		corpustest.EachLine(t, file, func(_ int64, l []byte) {
			if line == nil && strings.Contains(string(l), contains) {
				line = slices.Clone(l)
			}
		})
		if line == nil {
			t.Fatalf("%s: no line holding %s", file, contains)
		}
		return line
	}
	claudeInit := first("../testdata/corpus/claude/tools.stdout.jsonl", `"cwd"`)
	opencodeSession := first("../testdata/corpus/opencode/serve-tools.sse.txt", `"directory"`)
	opencodeSession = opencodeSession[strings.Index(string(opencodeSession), "{"):]
	for _, c := range []struct {
		stage   envelope.Stage
		name    string
		payload []byte
		want    string
	}{
		{envelope.StageNativeIn, "claude", claudeInit, "/tmp/realcli/runs/claude/tools/project"},
		{envelope.StageNativeIn, "", claudeInit, "/tmp/realcli/runs/claude/tools/project"},
		{envelope.StageNativeIn, "codex", claudeInit, ""},
		{envelope.StageNativeIn, "opencode", opencodeSession, "/tmp/realcli/runs/opencode/serve-tools/project"},
		{envelope.StageMeta, "claude", []byte(`{"evcapVersion":"x","cwd":"C:\\work\\app\\"}`), `C:\work\app`},
		{envelope.StageMeta, "claude", []byte(`{"cwd":"relative/dir"}`), ""},
		{envelope.StageNormalizedOut, "claude", claudeInit, ""},
	} {
		if got := providers.DeclaredProject(c.stage, c.name, c.payload); got != c.want {
			t.Errorf("%s %q %.60s: %q, want %q", c.stage, c.name, c.payload, got, c.want)
		}
	}
	if keys := providers.ProjectKeys(); !slices.Equal(keys, []string{"cwd", "directory"}) {
		t.Errorf("ProjectKeys %v", keys)
	}
}
