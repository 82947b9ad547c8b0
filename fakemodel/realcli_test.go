package fakemodel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// These tests drive the real agent CLIs against the server. They install
// nothing: a CLI is taken from $EVCAP_CLI_DIR/node_modules/.bin (see
// .ci/install-clis.sh) or PATH, and the test skips when it is absent. Run
// them inside a network namespace with only loopback up, so that no CLI
// reaches anything but the server (the test binary runs in the package
// directory, where testdata/ is). FAKEMODEL_DUMP_DIR=DIR keeps each run's
// stdout, stderr and request log there.
//
//	go test -c -o /tmp/fakemodel.test ./fakemodel
//	cd fakemodel && EVCAP_CLI_DIR=/work/cli-cache unshare --net -- sh -c 'ip link set lo up && exec /tmp/fakemodel.test -test.run RealCLI -test.v'

const readme = "# demo-project\n\nA tiny sample project used for capture tests.\n"

// cliRun is what one CLI run left behind.
type cliRun struct {
	stdout, stderr []byte
	exit           int
	stats          Stats
	project        string
	requests       string // the server's request log
}

// runCLI starts a server for the scenario file, runs the CLI headless with
// prompt in a fresh project and home, and returns what happened.
func runCLI(t *testing.T, c CLI, scenarioFile, prompt string, extraEnv ...string) cliRun {
	t.Helper()
	bin, err := LookCLI(c, os.Getenv("EVCAP_CLI_DIR"))
	if errors.Is(err, ErrCLINotFound) {
		t.Skipf("%s not installed (npm package %s): %v", c, c.NPMPackage(), err)
	}
	if err != nil {
		t.Fatal(err)
	}
	sc, err := LoadScenarioFile(filepath.Join("testdata", scenarioFile))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	home, project := filepath.Join(dir, "home"), filepath.Join(dir, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(project, "README.md"), []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	var reqLog lockedBuffer
	srv := New(sc, Options{Log: &reqLog})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("server: %v", err)
		}
	}()

	env, err := Prepare(c, "http://"+ln.Addr().String(), home)
	if err != nil {
		t.Fatal(err)
	}
	env = append(env, "PATH="+PathWithNode(bin, os.Getenv("PATH")))
	env = append(env, extraEnv...)

	runCtx, stop := context.WithTimeout(context.Background(), 4*time.Minute)
	defer stop()
	cmd := exec.CommandContext(runCtx, bin, HeadlessArgs(c, project, prompt)...)
	cmd.Dir = project
	cmd.Env = env
	cmd.Stdin = nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err = cmd.Run()
	exit := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %s: %v\nstderr:\n%s", c, err, stderr.String())
	}
	if runCtx.Err() != nil {
		t.Fatalf("%s did not finish in time\nstdout:\n%s\nstderr:\n%s", c, stdout.String(), stderr.String())
	}
	t.Logf("%s exited %d after %s; %d stdout lines; %+v", c, exit, time.Since(start).Round(time.Millisecond), bytes.Count(stdout.Bytes(), []byte("\n")), srv.Stats())
	r := cliRun{stdout: stdout.Bytes(), stderr: stderr.Bytes(), exit: exit, stats: srv.Stats(), project: project, requests: reqLog.String()}
	if dump := os.Getenv("FAKEMODEL_DUMP_DIR"); dump != "" {
		// Keep what the run printed and sent, for a person to read.
		base := filepath.Join(dump, strings.ReplaceAll(t.Name(), "/", "_"))
		for suffix, data := range map[string][]byte{".stdout.jsonl": r.stdout, ".stderr.txt": r.stderr, ".requests.jsonl": []byte(r.requests)} {
			if err := os.WriteFile(base+suffix, data, 0o644); err != nil {
				t.Errorf("dump: %v", err)
			}
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("stdout:\n%s\nstderr:\n%s\nrequests:\n%s", r.stdout, tail(r.stderr, 4000), tail([]byte(r.requests), 8000))
		}
	})
	return r
}

func tail(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return b[len(b)-n:]
}

// observed is what a CLI's stdout says happened, in a CLI-neutral form.
type observed struct {
	calls []observedCall
	// results are the tool outputs the CLI printed, in order.
	results []string
	// final is the last assistant text (for Gemini CLI: the deltas after
	// the last tool result, joined).
	final string
}

type observedCall struct {
	name string
	args string // the arguments as JSON
}

// observe reads the CLI's stdout JSON lines.
func observe(t *testing.T, c CLI, stdout []byte) observed {
	t.Helper()
	var o observed
	var geminiText strings.Builder
	for i, line := range bytes.Split(bytes.TrimSuffix(stdout, []byte("\n")), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if !gjson.ValidBytes(line) {
			t.Errorf("stdout line %d is not JSON: %.200s", i+1, line)
			continue
		}
		l := gjson.ParseBytes(line)
		switch c {
		case ClaudeCode:
			switch l.Get("type").String() {
			case "assistant":
				l.Get("message.content").ForEach(func(_, b gjson.Result) bool {
					if b.Get("type").String() == "tool_use" {
						o.calls = append(o.calls, observedCall{b.Get("name").String(), b.Get("input").Raw})
					}
					return true
				})
			case "user":
				l.Get("message.content").ForEach(func(_, b gjson.Result) bool {
					if b.Get("type").String() == "tool_result" {
						o.results = append(o.results, b.Get("content").String())
					}
					return true
				})
			case "result":
				o.final = l.Get("result").String()
			}
		case Codex:
			item := l.Get("item")
			if l.Get("type").String() != "item.completed" {
				continue
			}
			switch item.Get("type").String() {
			case "command_execution":
				o.calls = append(o.calls, observedCall{"command_execution", item.Get("command").Raw})
				o.results = append(o.results, item.Get("aggregated_output").String())
			case "file_change":
				o.calls = append(o.calls, observedCall{"file_change", item.Get("changes").Raw})
			case "agent_message":
				o.final = item.Get("text").String()
			}
		case OpenCode:
			switch l.Get("type").String() {
			case "tool_use":
				o.calls = append(o.calls, observedCall{l.Get("part.tool").String(), l.Get("part.state.input").Raw})
				o.results = append(o.results, l.Get("part.state.output").String())
			case "text":
				o.final = l.Get("part.text").String()
			}
		case GeminiCLI:
			switch l.Get("type").String() {
			case "tool_use":
				o.calls = append(o.calls, observedCall{l.Get("tool_name").String(), l.Get("parameters").Raw})
			case "tool_result":
				o.results = append(o.results, l.Get("output").String())
				geminiText.Reset()
			case "message":
				if l.Get("role").String() == "assistant" {
					geminiText.WriteString(l.Get("content").String())
				}
			}
		}
	}
	if c == GeminiCLI {
		o.final = geminiText.String()
	}
	return o
}

var toolsPrompt = "What is in this project? List the files, then read the README and summarise it."

func TestRealCLITools(t *testing.T) {
	if testing.Short() {
		t.Skip("drives real CLIs")
	}
	sc, err := LoadScenarioFile("testdata/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	final := sc.Turns[2].Text
	for _, c := range CLIs() {
		t.Run(string(c), func(t *testing.T) {
			r := runCLI(t, c, "tools.json", toolsPrompt)
			if r.exit != 0 {
				t.Errorf("exit code %d, want 0", r.exit)
			}
			if got, want := fmt.Sprint(r.stats.Turns), "[0 1 2]"; got != want {
				t.Errorf("turns served %s, want %s", got, want)
			}
			o := observe(t, c, r.stdout)
			if len(o.calls) != 2 {
				t.Fatalf("tool calls on stdout: %+v, want 2 (shell ls, read README.md)", o.calls)
			}
			wantShell := map[CLI]string{ClaudeCode: "Bash", Codex: "command_execution", OpenCode: "bash", GeminiCLI: "run_shell_command"}[c]
			if o.calls[0].name != wantShell || !strings.Contains(o.calls[0].args, `ls`) {
				t.Errorf("first call %+v, want %s running ls", o.calls[0], wantShell)
			}
			wantRead := map[CLI]string{ClaudeCode: "Read", Codex: "command_execution", OpenCode: "read", GeminiCLI: "read_file"}[c]
			if o.calls[1].name != wantRead || !strings.Contains(o.calls[1].args, "README.md") {
				t.Errorf("second call %+v, want %s of README.md", o.calls[1], wantRead)
			}
			if c != Codex {
				// The file tools got an absolute path inside the project.
				if !strings.Contains(o.calls[1].args, filepath.Join(r.project, "README.md")) {
					t.Errorf("read call %s does not name %s", o.calls[1].args, filepath.Join(r.project, "README.md"))
				}
			}
			// The tools really ran: ls listed the README; the read returned it
			// (Gemini CLI prints no read_file output on stdout).
			if len(o.results) < 1 || !strings.Contains(o.results[0], "README.md") {
				t.Errorf("ls result %q does not list README.md", o.results)
			}
			if c != GeminiCLI && (len(o.results) < 2 || !strings.Contains(o.results[1], "A tiny sample project")) {
				t.Errorf("read result %q lacks the README text", o.results)
			}
			if o.final != final {
				t.Errorf("final text %q, want %q", o.final, final)
			}
		})
	}
}

func TestRealCLIErrorRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("drives real CLIs")
	}
	for _, c := range CLIs() {
		t.Run(string(c), func(t *testing.T) {
			r := runCLI(t, c, "error-retry.json", "Say hello.")
			if r.exit != 0 {
				t.Errorf("exit code %d, want 0", r.exit)
			}
			if r.stats.Errors != 2 || len(r.stats.Turns) != 1 {
				t.Errorf("stats %+v, want 2 errors then 1 turn", r.stats)
			}
			if o := observe(t, c, r.stdout); o.final != "Hello! How can I help you with this project today?" {
				t.Errorf("final text %q", o.final)
			}
		})
	}
}

func TestRealCLIFatalError(t *testing.T) {
	if testing.Short() {
		t.Skip("drives real CLIs")
	}
	wantExit := map[CLI]int{ClaudeCode: 1, Codex: 1, OpenCode: 1, GeminiCLI: 144}
	for _, c := range CLIs() {
		t.Run(string(c), func(t *testing.T) {
			// Claude Code retries 401 ten times over minutes by default.
			r := runCLI(t, c, "fatal-error.json", "Say hello.", "CLAUDE_CODE_MAX_RETRIES=0")
			if r.exit != wantExit[c] {
				t.Errorf("exit code %d, want %d", r.exit, wantExit[c])
			}
			if r.stats.Errors < 1 || len(r.stats.Turns) != 0 {
				t.Errorf("stats %+v, want only errors", r.stats)
			}
		})
	}
}

func TestRealCLILongText(t *testing.T) {
	if testing.Short() {
		t.Skip("drives real CLIs")
	}
	sc, err := LoadScenarioFile("testdata/long-text.json")
	if err != nil {
		t.Fatal(err)
	}
	want := sc.Turns[0].Text
	for _, c := range CLIs() {
		t.Run(string(c), func(t *testing.T) {
			r := runCLI(t, c, "long-text.json", "Write a long, detailed write-up of the project with a code example.")
			if r.exit != 0 {
				t.Errorf("exit code %d, want 0", r.exit)
			}
			o := observe(t, c, r.stdout)
			if o.final != want {
				t.Errorf("final text differs from the scripted one:\n got %q\nwant %q", o.final, want)
			}
			for _, s := range []string{FakeAnthropicKey(), FakeAWSKeyID(), "/root/projects/demo", "/tmp/xyz", "👨‍👩‍👧‍👦"} {
				if !strings.Contains(o.final, s) {
					t.Errorf("final text lacks %q", s)
				}
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer that the server's handlers may write to
// while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
