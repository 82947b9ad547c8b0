//go:build unix

package record_test

// End-to-end tests of `evcap record` wrapped around the real agent CLIs,
// each pointed at the scripted model server (package fakemodel) on
// 127.0.0.1. They install nothing: a CLI is taken from
// $EVCAP_CLI_DIR/node_modules/.bin (see .ci/install-clis.sh) or PATH, and a
// test skips, naming the npm package, when it is absent. The evcap binary is
// built from this module with `go build` (offline: the module cache must
// hold the dependencies), or taken from $EVCAP_BIN.
//
// Run them inside a network namespace with only loopback up, so that no CLI
// reaches anything but the scripted server, from the package directory:
//
//	go test -c -o /tmp/rec.test ./record
//	cd record && EVCAP_CLI_DIR=/work/cli-cache unshare --net -- sh -c 'ip link set lo up && exec /tmp/rec.test -test.run RealCLI -test.v'
//
// EVCAP_REALCLI_KEEP=DIR keeps each run's capture and evcap's stderr there.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/fakemodel"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/redact"
	"github.com/tidwall/gjson"
)

// scenarios is where the scripted model turns live.
const scenarios = "../fakemodel/testdata"

// readmeText is the one file of the project the agents look at.
const readmeText = "# demo-project\n\nA tiny sample project used for capture tests.\n"

// variant is one way of running a CLI.
type variant struct {
	name     string
	cli      fakemodel.CLI
	provider string   // the provider evcap should detect
	extra    []string // arguments after fakemodel.HeadlessArgs
}

func variants() []variant {
	return []variant{
		{"claude", fakemodel.ClaudeCode, "claude", nil},
		{"claude-partial", fakemodel.ClaudeCode, "claude", []string{"--include-partial-messages"}},
		{"codex", fakemodel.Codex, "codex", nil},
		{"opencode", fakemodel.OpenCode, "opencode", nil},
		{"gemini", fakemodel.GeminiCLI, "gemini", nil},
	}
}

// evcapBuild builds the evcap binary once for all tests that need it.
type evcapBuild struct {
	once sync.Once
	dir  string
	path string
	err  error
}

var built evcapBuild

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// evcapBinary returns the path of an evcap binary: $EVCAP_BIN, or one built
// from this module.
func evcapBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("EVCAP_BIN"); p != "" {
		return p
	}
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "evcap-realcli-")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "evcap")
		cmd := exec.Command("go", "build", "-o", built.path, "github.com/evcap/evcap/cmd/evcap")
		out, err := cmd.CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build ./cmd/evcap (build it outside the network namespace and set EVCAP_BIN if the module cache lacks something): %w\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// cliVersion is the version of the npm package the CLI came from, for the
// test log ("" when it is not under EVCAP_CLI_DIR).
func cliVersion(c fakemodel.CLI) string {
	dir := os.Getenv("EVCAP_CLI_DIR")
	if dir == "" {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", c.NPMPackage(), "package.json"))
	if err != nil || !gjson.ValidBytes(b) {
		return ""
	}
	return gjson.GetBytes(b, "version").String()
}

// recorded is what one `evcap record` run left behind.
type recorded struct {
	v        variant
	exit     int    // evcap's exit code
	stderr   []byte // evcap's stderr: the live rendering and the CLI's stderr
	capture  string // the capture file
	raw      []byte // the capture file's bytes
	records  []*envelope.Record
	project  string
	home     string
	args     []string // the CLI's argv after its name
	stats    fakemodel.Stats
	sseURL   string           // set for evcap record --sse
	redactor *redact.Redactor // as evcap's default one was built for this run
}

// recordCLI starts a server for the scenario, runs `evcap record -- CLI ...`
// in a fresh project and home, and reads the capture back.
// setup is a fresh project and home for one CLI run, with a scripted
// server serving until the test ends.
type setup struct {
	bin, evcap, dir, home, project string
	env                            []string
	srv                            *fakemodel.Server
}

// newSetup finds the CLI (skipping when it is absent), builds evcap, makes
// the project and home, starts the server for the scenario and prepares
// the CLI's configuration.
func newSetup(t *testing.T, c fakemodel.CLI, scenario string) *setup {
	t.Helper()
	bin, err := fakemodel.LookCLI(c, os.Getenv("EVCAP_CLI_DIR"))
	if errors.Is(err, fakemodel.ErrCLINotFound) {
		t.Skipf("%s not installed (npm package %s): %v", c, c.NPMPackage(), err)
	}
	if err != nil {
		t.Fatal(err)
	}
	su := &setup{bin: bin, evcap: evcapBinary(t), dir: t.TempDir()}
	sc, err := fakemodel.LoadScenarioFile(filepath.Join(scenarios, scenario))
	if err != nil {
		t.Fatal(err)
	}
	su.home, su.project = filepath.Join(su.dir, "home"), filepath.Join(su.dir, "project")
	for _, d := range []string{su.home, su.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(su.project, "README.md"), []byte(readmeText), 0o644); err != nil {
		t.Fatal(err)
	}
	su.srv = fakemodel.New(sc, fakemodel.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- su.srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	su.env, err = fakemodel.Prepare(c, "http://"+ln.Addr().String(), su.home)
	if err != nil {
		t.Fatal(err)
	}
	su.env = append(su.env, "PATH="+fakemodel.PathWithNode(bin, os.Getenv("PATH")))
	return su
}

// read reads back the capture evcap wrote, keeps it when asked, and logs
// what happened.
func (su *setup) read(t *testing.T, v variant, capPath string, exit int, stderr []byte, took time.Duration) *recorded {
	t.Helper()
	raw, err := os.ReadFile(capPath)
	if err != nil {
		t.Fatalf("capture: %v\nevcap stderr:\n%s", err, stderr)
	}
	red, err := redact.New(redact.Options{Home: su.home, Project: su.project, Temp: []string{filepath.Join(su.home, "tmp")}})
	if err != nil {
		t.Fatal(err)
	}
	r := &recorded{v: v, exit: exit, stderr: stderr, capture: capPath, raw: raw,
		records: corpustest.Records(t, capPath), project: su.project, home: su.home, stats: su.srv.Stats(), redactor: red}
	t.Logf("%s %s: evcap exited %d after %s; capture %d bytes, %d records; server %+v",
		v.cli, cliVersion(v.cli), exit, took.Round(time.Millisecond), len(raw), len(r.records), r.stats)
	if keep := os.Getenv("EVCAP_REALCLI_KEEP"); keep != "" {
		base := filepath.Join(keep, strings.ReplaceAll(t.Name(), "/", "_"))
		for suffix, data := range map[string][]byte{".capture.jsonl": raw, ".stderr.txt": stderr} {
			if err := os.WriteFile(base+suffix, data, 0o644); err != nil {
				t.Errorf("keep: %v", err)
			}
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("evcap stderr (tail):\n%s", tail(r.stderr, 4000))
		}
	})
	return r
}

// recordCLI runs `evcap record -- CLI ...` headless in a fresh project and
// home against the scenario, and reads the capture back.
func recordCLI(t *testing.T, v variant, scenario, prompt string, extraEnv ...string) *recorded {
	t.Helper()
	su := newSetup(t, v.cli, scenario)
	bin, project, dir := su.bin, su.project, su.dir
	env := append(su.env, extraEnv...)

	// The prompt names the project directory and carries a fake token, so
	// that every run shows argv redaction in capture.start.
	prompt += " The project is in " + project + "; the deploy token is " + fakemodel.FakeGitHubToken() + "."
	args := append(fakemodel.HeadlessArgs(v.cli, project, prompt), v.extra...)
	capPath := filepath.Join(dir, "capture.jsonl") // outside the project, where ls would see it
	argv := append([]string{"record", "-o", capPath, "--color", "never", "--", bin}, args...)

	runCtx, stop := context.WithTimeout(context.Background(), 4*time.Minute)
	defer stop()
	cmd := exec.CommandContext(runCtx, su.evcap, argv...)
	cmd.Dir = project // evcap redacts its working directory as <PROJECT>
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	exit := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("run evcap record: %v\nstderr:\n%s", err, stderr.String())
	}
	if runCtx.Err() != nil {
		t.Fatalf("evcap record -- %s did not finish in time\nstderr:\n%s", v.cli, stderr.String())
	}
	r := su.read(t, v, capPath, exit, stderr.Bytes(), time.Since(start))
	r.args = args
	return r
}

func tail(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return b[len(b)-n:]
}

// evcapRun runs an evcap subcommand and returns its stdout and exit code.
func evcapRun(t *testing.T, args ...string) ([]byte, []byte, int) {
	t.Helper()
	cmd := exec.Command(evcapBinary(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return stdout.Bytes(), stderr.Bytes(), ee.ExitCode()
	case err != nil:
		t.Fatalf("evcap %s: %v", strings.Join(args, " "), err)
	}
	return stdout.Bytes(), stderr.Bytes(), 0
}

// events decodes the capture's normalized_out records.
func (r *recorded) events(t *testing.T) []event.Event {
	t.Helper()
	var out []event.Event
	for _, rec := range r.records {
		if rec.Stage != envelope.StageNormalizedOut {
			continue
		}
		var e event.Event
		if err := json.Unmarshal(rec.Payload, &e); err != nil {
			t.Fatalf("normalized_out sequence %d: %v", rec.Sequence, err)
		}
		out = append(out, e)
	}
	return out
}

// check asserts what every recording must show: the capture validates, all
// stages are there, capture.start and capture.end say what happened,
// evcap's exit code is the CLI's, nothing names the project or home
// directory, and normalizing native_in again gives back normalized_out.
func (r *recorded) check(t *testing.T, wantExit int) {
	t.Helper()
	out, _, code := evcapRun(t, "validate", r.capture)
	if code != 0 {
		t.Errorf("evcap validate exited %d:\n%s", code, out)
	}
	t.Logf("evcap validate: %s", bytes.TrimSpace(out))

	counts := map[envelope.Stage]int64{}
	for _, rec := range r.records {
		counts[rec.Stage]++
	}
	for _, s := range []envelope.Stage{envelope.StageNativeIn, envelope.StageNormalizedOut, envelope.StageLegacyOut, envelope.StageMeta} {
		if counts[s] == 0 {
			t.Errorf("no %s records", s)
		}
	}
	if counts[envelope.StageMeta] != 2 {
		t.Errorf("%d meta records, want 2 (capture.start, capture.end)", counts[envelope.StageMeta])
	}
	if len(r.records) < 2 {
		t.Fatalf("only %d records", len(r.records))
	}

	first, last := r.records[0], r.records[len(r.records)-1]
	if first.EventType != envelope.EventCaptureStart || last.EventType != envelope.EventCaptureEnd {
		t.Fatalf("capture runs from %s to %s, want capture.start to capture.end", first.EventType, last.EventType)
	}
	start := gjson.ParseBytes(first.Payload)
	if got := start.Get("provider").String(); got != r.v.provider {
		t.Errorf("capture.start provider %q, want %q", got, r.v.provider)
	}
	end := gjson.ParseBytes(last.Payload)
	if r.sseURL != "" {
		// An SSE recording has no child: its argv is the request, and
		// there is no exit code.
		if got := start.Get("argv").Raw; got != `["GET","`+r.sseURL+`"]` {
			t.Errorf("capture.start argv %s, want GET %s", got, r.sseURL)
		}
		if ec := end.Get("exitCode"); ec.Type != gjson.Null {
			t.Errorf("capture.end exitCode %s, want null", ec.Raw)
		}
	} else {
		if got := start.Get("cliName").String(); got != string(r.v.cli) {
			t.Errorf("capture.start cliName %q, want %q", got, r.v.cli)
		}
		r.checkArgv(t, start.Get("argv"))
		if ec := end.Get("exitCode"); ec.Type != gjson.Number || int(ec.Int()) != wantExit {
			t.Errorf("capture.end exitCode %s, want %d", ec.Raw, wantExit)
		}
	}
	if r.exit != wantExit {
		t.Errorf("evcap exited %d, want the CLI's %d", r.exit, wantExit)
	}
	if !end.Get("cleanEnd").Bool() {
		t.Errorf("capture.end cleanEnd is not true: %s", last.Payload)
	}
	if got := end.Get("stdoutLines").Int(); got != counts[envelope.StageNativeIn]-stderrRecords(r.records) {
		t.Errorf("capture.end stdoutLines %d, but %d native stdout records", got, counts[envelope.StageNativeIn]-stderrRecords(r.records))
	}
	t.Logf("capture.start cliVersion %q; capture.end %s", start.Get("cliVersion").String(), last.Payload)

	// No path of this run's machine is left; the project shows as <PROJECT>.
	for _, p := range []string{r.project, r.home} {
		if n := bytes.Count(r.raw, []byte(p)); n > 0 {
			t.Errorf("the capture names %s %d times", p, n)
		}
	}
	// encoding/json writes < and > as \u003c and \u003e (evcap's own
	// records); the CLIs' lines keep them.
	escaped := strings.NewReplacer("<", `\u003c`, ">", `\u003e`).Replace(redact.PlaceholderProject)
	if !bytes.Contains(r.raw, []byte(redact.PlaceholderProject)) && !bytes.Contains(r.raw, []byte(escaped)) {
		t.Errorf("the capture has no %s", redact.PlaceholderProject)
	}

	r.checkNormalizeAgain(t)
}

func stderrRecords(recs []*envelope.Record) int64 {
	n := int64(0)
	for _, rec := range recs {
		if rec.Stage == envelope.StageNativeIn && rec.EventType == envelope.EventStderr {
			n++
		}
	}
	return n
}

// checkArgv: capture.start holds the CLI's argv, argument by argument, with
// the fake token and the project directory of the prompt replaced.
func (r *recorded) checkArgv(t *testing.T, argv gjson.Result) {
	t.Helper()
	got := argv.Array()
	if len(got) != 1+len(r.args) {
		t.Fatalf("capture.start argv has %d elements, want %d: %s", len(got), 1+len(r.args), argv.Raw)
	}
	if filepath.Base(got[0].String()) != string(r.v.cli) {
		t.Errorf("capture.start argv[0] %q", got[0].String())
	}
	token := fakemodel.FakeGitHubToken()
	for i, a := range r.args {
		g := got[i+1].String()
		if !strings.Contains(a, token) && !strings.Contains(a, r.project) {
			if g != a {
				t.Errorf("capture.start argv[%d] %q, want %q", i+1, g, a)
			}
			continue
		}
		if strings.Contains(g, token) || strings.Contains(g, r.project) {
			t.Errorf("capture.start argv[%d] keeps a secret or the project path: %q", i+1, g)
		}
		if strings.Contains(a, r.project) && !strings.Contains(g, redact.PlaceholderProject) {
			t.Errorf("capture.start argv[%d] %q lacks %s", i+1, g, redact.PlaceholderProject)
		}
		if strings.Contains(a, token) && !strings.Contains(g, "[REDACTED:") {
			t.Errorf("capture.start argv[%d] %q lacks a redaction token", i+1, g)
		}
	}
}

// checkNormalizeAgain: `evcap normalize CAPTURE` (which reads native_in)
// equals the recorded normalized_out, causes included.
func (r *recorded) checkNormalizeAgain(t *testing.T) {
	t.Helper()
	out, errOut, code := evcapRun(t, "normalize", r.capture)
	if code != 0 {
		t.Fatalf("evcap normalize exited %d: %s", code, errOut)
	}
	var recorded []string
	for _, rec := range r.records {
		if rec.Stage != envelope.StageNormalizedOut {
			continue
		}
		p := string(rec.Payload)
		if len(rec.Cause) > 0 {
			c, _ := json.Marshal(rec.Cause)
			p = strings.TrimSuffix(p, "}") + `,"cause":` + string(c) + "}"
		}
		recorded = append(recorded, canonJSON(t, p))
	}
	var again []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line != "" {
			again = append(again, canonJSON(t, line))
		}
	}
	if len(recorded) != len(again) {
		t.Errorf("evcap normalize gives %d events, the capture recorded %d", len(again), len(recorded))
	}
	for i := range min(len(recorded), len(again)) {
		if recorded[i] != again[i] {
			t.Errorf("event %d differs:\nrecorded %s\nagain    %s", i+1, recorded[i], again[i])
			break
		}
	}
}

func canonJSON(t *testing.T, s string) string {
	t.Helper()
	if !gjson.Valid(s) {
		t.Fatalf("not JSON: %.300s", s)
	}
	// Decoded and encoded again: keys sorted, numbers as written, and one
	// spelling for every string (evcap's records keep < > & as they are,
	// evcap normalize's output escapes them).
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v: %.300s", err, s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// toolCall is a tool call as the normalized events tell it.
type toolCall struct{ name, summary string }

// toolCalls lists the calls in the order they were first seen, each with
// the name and summary of its last event.
func toolCalls(evs []event.Event) []toolCall {
	var ids []string
	byID := map[string]toolCall{}
	for _, e := range evs {
		if e.Kind != event.KindTool || e.Tool == nil {
			continue
		}
		id := e.ToolCallID
		if _, ok := byID[id]; !ok {
			ids = append(ids, id)
		}
		byID[id] = toolCall{e.Tool.Name, e.Tool.Summary}
	}
	out := make([]toolCall, len(ids))
	for i, id := range ids {
		out[i] = byID[id]
	}
	return out
}

// finalText is the text of the last completed text event.
func finalText(evs []event.Event) string {
	text := ""
	for _, e := range evs {
		if e.Kind == event.KindText && e.Phase == event.PhaseCompleted {
			text = e.Text
		}
	}
	return text
}

// deltaText joins the text of every text delta event.
func deltaText(evs []event.Event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Kind == event.KindText && e.Phase == event.PhaseDelta {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

// stagesHolding counts, by stage, the records whose payload holds s.
func stagesHolding(recs []*envelope.Record, s string) map[envelope.Stage]int {
	out := map[envelope.Stage]int{}
	for _, rec := range recs {
		if bytes.Contains(rec.Payload, []byte(s)) {
			out[rec.Stage]++
		}
	}
	return out
}

func skipShort(t *testing.T) {
	if testing.Short() {
		t.Skip("drives real agent CLIs")
	}
}

func TestRecordRealCLITools(t *testing.T) {
	skipShort(t)
	sc, err := fakemodel.LoadScenarioFile(filepath.Join(scenarios, "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	final := sc.Turns[2].Text
	// The tools each CLI calls for the scripted shell `ls` and read of
	// README.md. codex runs both through its shell (command_execution
	// items, which its normalizer names Bash).
	wantTools := map[fakemodel.CLI][2]string{
		fakemodel.ClaudeCode: {"Bash", "Read"},
		fakemodel.Codex:      {"Bash", "Bash"},
		fakemodel.OpenCode:   {"bash", "read"},
		fakemodel.GeminiCLI:  {"run_shell_command", "read_file"},
	}
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			r := recordCLI(t, v, "tools.json", "What is in this project? List the files, then read the README and summarise it.")
			r.check(t, 0)
			evs := r.events(t)
			calls := toolCalls(evs)
			t.Logf("tool calls: %q", calls)
			if len(calls) != 2 {
				t.Fatalf("%d tool calls in normalized_out, want 2 (shell ls, read README.md): %q", len(calls), calls)
			}
			want := wantTools[v.cli]
			if calls[0].name != want[0] || !regexp.MustCompile(`\bls\b`).MatchString(calls[0].summary) {
				t.Errorf("first call %q, want %s running ls", calls[0], want[0])
			}
			if calls[1].name != want[1] || !strings.Contains(calls[1].summary, "README.md") {
				t.Errorf("second call %q, want %s of README.md", calls[1], want[1])
			}
			if got := gjson.GetBytes(r.records[len(r.records)-1].Payload, "toolCalls").Int(); got != 2 {
				t.Errorf("capture.end toolCalls %d, want 2", got)
			}
			if got := finalText(evs); got != final {
				t.Errorf("final text %q, want %q", got, final)
			}
		})
	}
}

func TestRecordRealCLIErrorRetry(t *testing.T) {
	skipShort(t)
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			r := recordCLI(t, v, "error-retry.json", "Say hello.")
			r.check(t, 0)
			if r.stats.Errors != 2 || len(r.stats.Turns) != 1 {
				t.Errorf("server %+v, want 2 errors then 1 turn", r.stats)
			}
			evs := r.events(t)
			if got := finalText(evs); got != "Hello! How can I help you with this project today?" {
				t.Errorf("final text %q", got)
			}
			retries := 0
			for _, e := range evs {
				if e.Kind == event.KindRetry {
					retries++
				}
			}
			var stderrRetry int
			for _, rec := range r.records {
				if rec.EventType == envelope.EventStderr && bytes.Contains(rec.Payload, []byte("Retrying")) {
					stderrRetry++
				}
			}
			t.Logf("%d retry events, %d stderr records about retrying", retries, stderrRetry)
			// Where each CLI shows a retry: Claude Code as system/api_retry
			// lines, codex as a "Reconnecting..." error line, Gemini CLI only
			// on stderr; opencode run shows none.
			switch v.cli {
			case fakemodel.ClaudeCode, fakemodel.Codex:
				if retries == 0 {
					t.Errorf("no retry event in normalized_out")
				}
			case fakemodel.GeminiCLI:
				if stderrRetry == 0 {
					t.Errorf("no stderr record about retrying")
				}
			}
		})
	}
}

func TestRecordRealCLIFatalError(t *testing.T) {
	skipShort(t)
	wantExit := map[fakemodel.CLI]int{fakemodel.ClaudeCode: 1, fakemodel.Codex: 1, fakemodel.OpenCode: 1, fakemodel.GeminiCLI: 144}
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			// Claude Code retries 401 ten times over minutes by default.
			r := recordCLI(t, v, "fatal-error.json", "Say hello.", "CLAUDE_CODE_MAX_RETRIES=0")
			r.check(t, wantExit[v.cli])
			if r.stats.Errors < 1 || len(r.stats.Turns) != 0 {
				t.Errorf("server %+v, want only errors", r.stats)
			}
			failed := 0
			for _, e := range r.events(t) {
				if e.Kind == event.KindError || (e.Kind == event.KindResult && e.Phase == event.PhaseFailed) {
					failed++
				}
			}
			if failed == 0 {
				t.Errorf("no error event and no failed result in normalized_out")
			}
		})
	}
}

func TestRecordRealCLILongText(t *testing.T) {
	skipShort(t)
	sc, err := fakemodel.LoadScenarioFile(filepath.Join(scenarios, "long-text.json"))
	if err != nil {
		t.Fatal(err)
	}
	scripted := sc.Turns[0].Text
	secrets := []string{fakemodel.FakeAnthropicKey(), fakemodel.FakeAWSKeyID(), fakemodel.FakeGitHubToken()}
	for _, s := range secrets {
		if !strings.Contains(scripted, s) {
			t.Fatalf("the scripted text lacks the fake secret %.12s…", s)
		}
	}
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			r := recordCLI(t, v, "long-text.json", "Write a long, detailed write-up of the project with a code example.")
			r.check(t, 0)
			// Not in any record, whatever its stage: native lines (deltas
			// included), normalized events, legacy markers, meta.
			for _, s := range secrets {
				if n := bytes.Count(r.raw, []byte(s)); n > 0 {
					t.Errorf("fake secret %.16s… appears %d times in the capture, in records of %v", s, n, stagesHolding(r.records, s))
				}
			}
			evs := r.events(t)
			// A secret cut into several deltas must not come back when
			// the deltas are joined.
			joined := deltaText(evs)
			for _, s := range secrets {
				if strings.Contains(joined, s) {
					t.Errorf("the joined text deltas spell fake secret %.16s…", s)
				}
			}
			want, _ := r.redactor.Text([]byte(scripted))
			if bytes.Equal(want, []byte(scripted)) {
				t.Fatalf("redaction leaves the scripted text as it is")
			}
			got := finalText(evs)
			if got != string(want) {
				t.Errorf("final text differs from the scripted one, redacted:\n got %q\nwant %q", got, want)
			}
			// Any user's home is <HOME> (issue 13), the scripted /root among
			// them; other paths that are not this machine's stay as they were.
			for _, s := range []string{"<HOME>/projects/demo", "/tmp/xyz", "👨‍👩‍👧‍👦", "日本語のテキスト"} {
				if !strings.Contains(got, s) {
					t.Errorf("final text lacks %q", s)
				}
			}
			if strings.Contains(got, "/root/projects") {
				t.Errorf("final text keeps the home directory /root/projects")
			}
		})
	}
}

// TestRecordRealCLIOpencodeServe records opencode serve's event bus with
// `evcap record --sse URL --until-idle` while the test drives one prompt
// through the server's HTTP API; evcap stops by itself when the session
// goes idle.
func TestRecordRealCLIOpencodeServe(t *testing.T) {
	skipShort(t)
	v := variant{"opencode-serve", fakemodel.OpenCode, "opencode", nil}
	su := newSetup(t, v.cli, "tools.json")

	port := freePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	serve := exec.Command(su.bin, "serve", "--hostname", "127.0.0.1", "--port", fmt.Sprint(port))
	serve.Dir, serve.Env = su.project, su.env
	var serveErr bytes.Buffer
	serve.Stdout, serve.Stderr = &serveErr, &serveErr
	serve.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-serve.Process.Pid, syscall.SIGKILL)
		serve.Wait()
	})
	waitFor(t, 60*time.Second, "opencode serve to answer GET /config", func() bool {
		resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(base + "/config")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})

	sseURL := base + "/event"
	capPath := filepath.Join(su.dir, "capture.jsonl")
	rec := exec.Command(su.evcap, "record", "--sse", sseURL, "--until-idle", "-o", capPath, "--color", "never")
	rec.Dir, rec.Env = su.project, su.env
	var recErr bytes.Buffer
	rec.Stdout, rec.Stderr = io.Discard, &recErr
	start := time.Now()
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	recDone := make(chan error, 1)
	go func() { recDone <- rec.Wait() }()
	// The capture file is written once the first events arrived
	// (server.connected), so evcap is listening before the prompt goes in.
	waitFor(t, 15*time.Second, "evcap to write its first records", func() bool {
		st, err := os.Stat(capPath)
		return err == nil && st.Size() > 0
	})

	session := postJSON(t, base+"/session", `{"title":"evcap record test"}`)
	id := gjson.Get(session, "id").String()
	if id == "" {
		t.Fatalf("POST /session gave no id: %s", session)
	}
	msg := fmt.Sprintf(`{"model":{"providerID":"fake","modelID":"fake-model"},"parts":[{"type":"text","text":%q}]}`,
		"What is in this project? List the files, then read the README and summarise it.")
	postJSON(t, base+"/session/"+id+"/message", msg)

	var err error
	select {
	case err = <-recDone:
	case <-time.After(60 * time.Second):
		rec.Process.Kill()
		<-recDone
		t.Fatalf("evcap record --sse --until-idle did not stop after the session went idle\nstderr:\n%s", recErr.String())
	}
	exit := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		exit = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	r := su.read(t, v, capPath, exit, recErr.Bytes(), time.Since(start))
	r.sseURL = sseURL
	r.check(t, 0)
	if notes := gjson.GetBytes(r.records[len(r.records)-1].Payload, "notes").Raw; !strings.Contains(notes, "idle") {
		t.Errorf("capture.end notes %s do not say the session went idle", notes)
	}
	evs := r.events(t)
	calls := toolCalls(evs)
	t.Logf("tool calls: %q", calls)
	if len(calls) != 2 || calls[0].name != "bash" || calls[0].summary != "ls" || calls[1].name != "read" || !strings.Contains(calls[1].summary, "README.md") {
		t.Errorf("tool calls %q, want bash ls then read of README.md", calls)
	}
	sc, err := fakemodel.LoadScenarioFile(filepath.Join(scenarios, "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := finalText(evs); got != sc.Turns[2].Text {
		t.Errorf("final text %q, want %q", got, sc.Turns[2].Text)
	}
	// The bus streams text as deltas; joined they give the final text.
	if got := deltaText(evs); !strings.Contains(got, sc.Turns[2].Text) {
		t.Errorf("the text deltas do not spell the final text: %q", got)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func waitFor(t *testing.T, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting %s for %s", limit, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func postJSON(t *testing.T, url, body string) string {
	t.Helper()
	// A prompt runs the whole turn before the server answers.
	resp, err := (&http.Client{Timeout: 2 * time.Minute}).Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s: %s", url, resp.Status, b)
	}
	return string(b)
}
