package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/normalize/codex"
	"github.com/evcap/evcap/normalize/gemini"
	"github.com/evcap/evcap/normalize/opencode"
	"github.com/evcap/evcap/render/legacy"
	"github.com/google/go-cmp/cmp"
)

const corpusDir = "../../testdata/corpus"

// packageNormalizer builds the normalizer straight from its package, not
// through the provider table, so the test also checks the table's mapping.
func packageNormalizer(t *testing.T, provider string) event.Normalizer {
	switch provider {
	case "claude":
		return claude.New()
	case "codex":
		return codex.New()
	case "opencode":
		return opencode.New()
	case "gemini":
		return gemini.New()
	}
	t.Fatalf("no normalizer package for %q", provider)
	return nil
}

// TestNormalizeCorpus checks that `evcap normalize FILE`, which streams the
// file and detects its provider, prints exactly the events the provider's
// normalizer gives for the whole file fed line by line, and that --legacy
// prints exactly legacy.Derive of those events.
func TestNormalizeCorpus(t *testing.T) {
	for _, path := range corpustest.NativeFiles(t) {
		provider := filepath.Base(filepath.Dir(path))
		t.Run(provider+"/"+filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			n := packageNormalizer(t, provider)
			var evs []event.Event
			lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
			for i, line := range lines {
				evs = append(evs, n.Line(int64(i+1), line)...)
			}
			evs = append(evs, n.End()...)
			var want strings.Builder
			for _, e := range evs {
				b, err := json.Marshal(e)
				if err != nil {
					t.Fatal(err)
				}
				want.Write(b)
				want.WriteByte('\n')
			}
			var wantLegacy strings.Builder
			for _, m := range legacy.Derive(evs) {
				wantLegacy.WriteString(m.Line + "\n")
			}

			got, errOut, code := runEvcap(t, nil, "normalize", path)
			if code != 0 || errOut != "" {
				t.Fatalf("evcap normalize %s: exit %d, stderr %q", path, code, errOut)
			}
			if diff := cmp.Diff(want.String(), got); diff != "" {
				t.Errorf("evcap normalize differs from %s.New() over the whole file (-package +command):\n%s", provider, diff)
			}
			got, errOut, code = runEvcap(t, nil, "normalize", "--legacy", "--provider", provider, path)
			if code != 0 || errOut != "" {
				t.Fatalf("evcap normalize --legacy %s: exit %d, stderr %q", path, code, errOut)
			}
			if diff := cmp.Diff(wantLegacy.String(), got); diff != "" {
				t.Errorf("evcap normalize --legacy differs from legacy.Derive (-derive +command):\n%s", diff)
			}
			if len(evs) == 0 {
				t.Errorf("%s gave no events", path)
			}
		})
	}
}

// TestNormalizeExitCodes pins the exit status of each refusal, which the
// testscripts can only see as "failed".
func TestNormalizeExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	codexFile := filepath.Join(corpusDir, "codex", "error-retry.stdout.jsonl")
	notAgent := write("synthetic-not-an-agent.txt", "hello\n")
	torn := write("synthetic-torn.jsonl", `{"type":"thread.started","thread_id":"t"}`+"\n"+`{"type":"turn.sta`)
	badRecord := write("synthetic-bad-record.jsonl",
		`{"schemaVersion":1,"captureId":"C","sequence":1,"timestamp":"t","provider":"codex","sessionId":"","turnId":"","stage":"native_in","eventType":"turn.started","payload":{"type":"turn.started"},"redactions":[]}`+"\n"+
			"not a record\n")
	cases := []struct {
		reason string
		args   []string
		code   int
		stderr string
	}{
		{"corpus file", []string{"normalize", codexFile}, 0, ""},
		{"unknown provider", []string{"normalize", "--provider", "copilot", codexFile}, 2, `unknown provider "copilot"`},
		{"contradicting provider", []string{"normalize", "--provider", "gemini", codexFile}, 2, "looks like codex output"},
		{"undetectable input names the file", []string{"normalize", notAgent}, 2, "cannot tell which agent CLI wrote " + notAgent},
		{"missing file", []string{"normalize", filepath.Join(dir, "nowhere")}, 2, "nowhere"},
		{"torn last line is not fatal", []string{"normalize", torn}, 0, torn + ":2: last line has no newline"},
		{"invalid capture records are skipped but fail", []string{"normalize", badRecord}, 1, "1 invalid record(s) skipped"},
		{"census of undetectable input", []string{"census", notAgent}, 2, "cannot tell which agent CLI wrote " + notAgent},
	}
	for _, c := range cases {
		_, errOut, code := runEvcap(t, nil, c.args...)
		if code != c.code {
			t.Errorf("%s: evcap %v: exit %d, want %d (stderr %q)", c.reason, c.args, code, c.code, errOut)
		}
		if c.stderr == "" && errOut != "" || !strings.Contains(errOut, c.stderr) {
			t.Errorf("%s: evcap %v: stderr %q, want it to contain %q", c.reason, c.args, errOut, c.stderr)
		}
	}
}

// runEvcap runs the command line in-process and returns stdout, stderr and
// the exit status.
func runEvcap(t *testing.T, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, bytes.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), code
}

// TestNormalizeBigLine streams a codex stream whose first and middle lines
// are over 16 MiB through the command (the first line is read whole before
// the provider is known), and checks that the text arrives intact.
func TestNormalizeBigLine(t *testing.T) {
	corpustest.Heavy(t)
	big := strings.Repeat("x", 17<<20)
	var in bytes.Buffer
	// Shapes of testdata/corpus/codex/tools.stdout.jsonl; the sizes are synthetic.
	in.WriteString(`{"type":"thread.started","thread_id":"` + big + `"}` + "\n")
	in.WriteString(`{"type":"turn.started"}` + "\n")
	in.WriteString(`{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"` + big + `"}}` + "\n")
	in.WriteString(`{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0}}` + "\n")
	out, errOut, code := runEvcap(t, in.Bytes(), "normalize", "-")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var texts, sessions int
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var e event.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("output line is not an event: %v", err)
		}
		if e.Kind == event.KindText && e.Text == big {
			texts++
		}
		if e.SessionID == big {
			sessions++
		}
	}
	if texts != 1 || sessions == 0 {
		t.Errorf("got %d whole 17 MiB texts and %d events with the 17 MiB session id; want 1 and at least 1", texts, sessions)
	}
}

// TestNormalizeFromPipeIsLive: `evcap normalize -` reading a pipe writes
// a line's events while the writer waits, not when its input ends.
func TestNormalizeFromPipeIsLive(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(corpusDir, "claude", "tools-partial.stdout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first, rest, _ := strings.Cut(string(text), "\n")
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer outR.Close()
	code := make(chan int, 1)
	go func() {
		code <- run(context.Background(), []string{"normalize", "-"}, inR, outW, io.Discard)
		outW.Close()
	}()
	if _, err := io.WriteString(inW, first+"\n"); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	br := bufio.NewReader(outR)
	go func() {
		line, _ := br.ReadString('\n')
		got <- line
	}()
	select {
	case line := <-got:
		if !strings.Contains(line, `"cause":[1]`) {
			t.Fatalf("first output line %q is not line 1's event", line)
		}
	case <-time.After(20 * time.Second): // a hang guard, not a timing
		t.Fatal("no event written while the pipe's writer waits")
	}
	if _, err := io.WriteString(inW, rest); err != nil {
		t.Fatal(err)
	}
	inW.Close()
	all, err := io.ReadAll(br)
	if err != nil {
		t.Fatal(err)
	}
	if c := <-code; c != 0 {
		t.Fatalf("exit %d", c)
	}
	if n := strings.Count(string(all), "\n"); n < 50 {
		t.Fatalf("%d more events after the first", n)
	}
}
