//go:build unix

package history_test

// End-to-end tests with the real agent CLIs (names contain RealCLI; run by
// .ci/after-realcli.sh inside a network namespace with only loopback up,
// against the scripted model server of package fakemodel). Each runs a
// fresh scenario under `evcap record`, then imports the session the CLI
// stored in its fresh HOME with `evcap import`, and checks the import: one
// native_in record per stored entry, a valid capture, no unknown events,
// the planted secrets gone, and the restored session matching the live
// capture (`evcap replay --against`). A test skips, naming the npm
// package, when its CLI is not installed.

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/fakemodel"
	"github.com/evcap/evcap/history"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/tidwall/gjson"
)

// realCLI is one CLI as the tests run it.
type realCLI struct {
	name string // provider name
	cli  fakemodel.CLI
}

var realCLIs = []realCLI{
	{"claude", fakemodel.ClaudeCode},
	{"codex", fakemodel.Codex},
	{"gemini", fakemodel.GeminiCLI},
	{"opencode", fakemodel.OpenCode},
}

// run is one CLI run in a fresh project and home.
type run struct {
	c                  realCLI
	bin, evcap         string
	dir, home, project string
	env                []string
	srv                *fakemodel.Server
	secrets            plant
	prompt             string
	live, restored     string
}

func evcapBin(t *testing.T) string {
	t.Helper()
	p := os.Getenv("EVCAP_BIN")
	if p == "" {
		t.Skip("EVCAP_BIN is not set (the real-CLI tests run from .ci/after-realcli.sh)")
	}
	return p
}

func scenarioPath(name string) string {
	if _, err := os.Stat(filepath.Join("testdata", "scenarios", name)); err == nil {
		return filepath.Join("testdata", "scenarios", name)
	}
	return filepath.Join("..", "fakemodel", "testdata", name)
}

// newRun finds the CLI, makes the project (a README and a file whose
// name and content carry fake secrets, so that a tool's output and a file
// read hold them) and the home, and starts the model server.
func newRun(t *testing.T, c realCLI, scenario string) *run {
	t.Helper()
	bin, err := fakemodel.LookCLI(c.cli, os.Getenv("EVCAP_CLI_DIR"))
	if errors.Is(err, fakemodel.ErrCLINotFound) {
		t.Skipf("%s not installed (npm package %s): %v", c.cli, c.cli.NPMPackage(), err)
	}
	if err != nil {
		t.Fatal(err)
	}
	r := &run{c: c, bin: bin, evcap: evcapBin(t), dir: t.TempDir()}
	r.secrets = plant{prompt: fakeToken(t), output: fakeToken(t), file: fakeToken(t)}
	r.home, r.project = filepath.Join(r.dir, "home"), filepath.Join(r.dir, "project")
	for _, d := range []string{r.home, r.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	readme := "# demo-project\n\nA tiny sample project used for capture tests. Deploy key: " + r.secrets.file + "\n"
	if err := os.WriteFile(filepath.Join(r.project, "README.md"), []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.project, "notes-"+r.secrets.output+".txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := fakemodel.LoadScenarioFile(scenarioPath(scenario))
	if err != nil {
		t.Fatal(err)
	}
	r.srv = fakemodel.New(sc, fakemodel.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- r.srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-served })
	if r.env, err = fakemodel.Prepare(c.cli, "http://"+ln.Addr().String(), r.home); err != nil {
		t.Fatal(err)
	}
	r.env = append(r.env, "PATH="+fakemodel.PathWithNode(bin, os.Getenv("PATH")))
	if scenario == "fatal-error.json" {
		r.env = append(r.env, "CLAUDE_CODE_MAX_RETRIES=0") // Claude Code retries a 401 for minutes otherwise
	}
	r.prompt = "What is in this project? List the files, then read the README and summarise it. My token is " + r.secrets.prompt + "."
	r.live, r.restored = filepath.Join(r.dir, "live.jsonl"), filepath.Join(r.dir, "restored.jsonl")
	return r
}

func (r *run) getenv(k string) string {
	for i := len(r.env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(r.env[i], k+"="); ok {
			return v
		}
	}
	return ""
}

// evcapCmd runs evcap with the run's environment in the project.
func (r *run) evcapCmd(t *testing.T, args ...string) ([]byte, int) {
	t.Helper()
	ctx, stop := context.WithTimeout(context.Background(), 4*time.Minute)
	defer stop()
	cmd := exec.CommandContext(ctx, r.evcap, args...)
	cmd.Dir, cmd.Env = r.project, r.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return out.Bytes(), ee.ExitCode()
	case err != nil:
		t.Fatalf("evcap %s: %v\n%s", strings.Join(args, " "), err, out.Bytes())
	}
	return out.Bytes(), 0
}

// record runs the CLI under evcap record.
func (r *run) record(t *testing.T) {
	t.Helper()
	args := append([]string{"record", "-o", r.live, "--color", "never", "--render", "none", "--", r.bin},
		fakemodel.HeadlessArgs(r.c.cli, r.project, r.prompt)...)
	out, code := r.evcapCmd(t, args...)
	t.Logf("evcap record -- %s exited %d; server %+v", r.c.cli, code, r.srv.Stats())
	if _, err := os.Stat(r.live); err != nil {
		t.Fatalf("no live capture: %v\n%s", err, tail(out))
	}
}

func tail(b []byte) []byte {
	if len(b) > 3000 {
		return b[len(b)-3000:]
	}
	return b
}

// sessionID reads the session id the live capture's init event names.
func sessionID(t *testing.T, path string) string {
	t.Helper()
	for _, rec := range corpustest.Records(t, path) {
		if rec.Stage == envelope.StageNormalizedOut {
			if id := gjson.GetBytes(rec.Payload, "sessionId").String(); id != "" {
				return id
			}
		}
	}
	return ""
}

// storedEntries counts the entries of the session the CLI stored: lines
// of its JSONL file, or messages of the session in opencode's database.
func (r *run) storedEntries(t *testing.T, id string) (int, string) {
	t.Helper()
	p, err := history.Locate(r.c.name, id, history.Env{Getenv: r.getenv, Home: r.home})
	if err != nil {
		t.Fatalf("locate the stored session: %v", err)
	}
	if r.c.name == "opencode" {
		db, err := sql.Open("sqlite", "file:"+p+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		var err2 error
		if id == "" {
			err2 = db.QueryRow(`SELECT count(*) FROM message WHERE session_id = (SELECT id FROM session ORDER BY time_updated DESC LIMIT 1)`).Scan(&n)
		} else {
			err2 = db.QueryRow(`SELECT count(*) FROM message WHERE session_id = ?`, id).Scan(&n)
		}
		if err2 != nil {
			t.Fatal(err2)
		}
		return n, p
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			n++
		}
	}
	return n, p
}

// importAndCheck imports the stored session and checks it; it returns the
// imported records.
func (r *run) importAndCheck(t *testing.T, id string) []*envelope.Record {
	t.Helper()
	want, stored := r.storedEntries(t, id)
	if keep := os.Getenv("EVCAP_HISTORY_KEEP"); keep != "" {
		// Keep what the run left for a look afterwards.
		t.Cleanup(func() {
			base := filepath.Join(keep, strings.ReplaceAll(t.Name(), "/", "_"))
			for suffix, p := range map[string]string{".stored" + filepath.Ext(stored): stored, ".live.jsonl": r.live, ".restored.jsonl": r.restored} {
				if b, err := os.ReadFile(p); err == nil {
					os.WriteFile(base+suffix, b, 0o644)
				}
			}
		})
	}
	args := []string{"import", "--provider", r.c.name, "-o", r.restored}
	if id != "" {
		args = append(args, "--session", id)
	}
	out, code := r.evcapCmd(t, args...)
	if code != 0 {
		t.Fatalf("evcap import exited %d:\n%s", code, out)
	}
	t.Logf("%s", bytes.TrimSpace(out))
	if out, code := r.evcapCmd(t, "validate", r.restored); code != 0 {
		t.Errorf("evcap validate of the import exited %d:\n%s", code, tail(out))
	}
	recs := corpustest.Records(t, r.restored)
	native, unknown := 0, 0
	for _, rec := range recs {
		switch {
		case rec.Stage == envelope.StageNativeIn:
			native++
		case rec.Stage == envelope.StageNormalizedOut && rec.EventType == string(event.KindUnknown):
			unknown++
			t.Errorf("unknown event at sequence %d: %s", rec.Sequence, rec.Payload)
		}
	}
	if native != want || want == 0 {
		t.Errorf("stored session %s has %d entries, the import %d native_in records", stored, want, native)
	}
	raw, err := os.ReadFile(r.restored)
	if err != nil {
		t.Fatal(err)
	}
	storedRaw, _ := os.ReadFile(stored)
	for where, s := range map[string]string{"prompt": r.secrets.prompt, "tool output": r.secrets.output, "file read": r.secrets.file} {
		if bytes.Contains(raw, []byte(s)) {
			t.Errorf("the %s secret is in the import", where)
		}
		if r.c.name != "opencode" && where == "prompt" && !bytes.Contains(storedRaw, []byte(s)) {
			t.Errorf("the %s secret is not in the stored session: the check above proves nothing", where)
		}
	}
	san := filepath.Join(r.dir, "sanitized.jsonl")
	if out, code := r.evcapCmd(t, "sanitize", r.restored, "-o", san); code != 0 {
		t.Errorf("evcap sanitize of the import exited %d:\n%s", code, tail(out))
	} else if out, code := r.evcapCmd(t, "scan", san); code != 0 {
		t.Errorf("evcap scan of the sanitized import exited %d:\n%s", code, tail(out))
	}
	if out, code := r.evcapCmd(t, "render", r.restored); code != 0 {
		t.Errorf("evcap render of the import exited %d:\n%s", code, tail(out))
	}
	return recs
}

// knownRealDifference names the live-vs-restored differences the CLIs
// make themselves, by CLI and scenario (see knownDifference).
var knownRealDifference = map[string]func(*history.Difference) bool{
	"gemini/long-text.json": knownDifference["gemini/long-text"],
	// Gemini CLI 0.61.0 stores no trace of a fatal API error: it rewinds
	// the session to the context message, dropping even the prompt, so the
	// restored run shows nothing and does not fail.
	"gemini/fatal-error.json": func(d *history.Difference) bool {
		return d.What == "outcome (result isError)" && d.Live == "true" && d.Restored == "false"
	},
}

func TestImportRealCLIScenarios(t *testing.T) {
	for _, c := range realCLIs {
		for _, sc := range []string{"tools.json", "long-text.json", "error-retry.json", "fatal-error.json", "tool-error.json"} {
			t.Run(c.name+"/"+strings.TrimSuffix(sc, ".json"), func(t *testing.T) {
				r := newRun(t, c, sc)
				r.record(t)
				id := sessionID(t, r.live)
				if id == "" && c.name != "opencode" {
					t.Fatalf("the live capture names no session")
				}
				r.importAndCheck(t, id)
				out, code := r.evcapCmd(t, "replay", "--against", r.live, r.restored)
				if known := knownRealDifference[c.name+"/"+sc]; known != nil {
					lf, _ := os.Open(r.live)
					rf, _ := os.Open(r.restored)
					d, err := history.CompareCaptures(lf, r.live, rf, r.restored, history.CompareOptions{})
					lf.Close()
					rf.Close()
					if err != nil || d == nil || !known(d) {
						t.Errorf("want the known difference, got %v (err %v)", d, err)
					}
					return
				}
				if code != 0 {
					t.Errorf("evcap replay --against exited %d:\n%s", code, out)
				}
			})
		}
	}
}

// TestImportRealCLIAborted kills each CLI while its tool runs and imports
// what it had stored by then: nothing may be lost.
func TestImportRealCLIAborted(t *testing.T) {
	for _, c := range realCLIs {
		t.Run(c.name, func(t *testing.T) {
			r := newRun(t, c, "aborted.json")
			cmd := exec.Command(r.bin, fakemodel.HeadlessArgs(r.c.cli, r.project, r.prompt)...)
			cmd.Dir, cmd.Env = r.project, r.env
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitUntil(t, 90*time.Second, "the model to ask for the long command", func() bool { return len(r.srv.Stats().Turns) >= 1 })
			time.Sleep(3 * time.Second) // the CLI runs the tool and stores the call
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
			id := ""
			if c.name != "opencode" {
				id = storedSessionID(t, r)
			}
			recs := r.importAndCheck(t, id)
			var result *envelope.Record
			for _, rec := range recs {
				if rec.Stage == envelope.StageNormalizedOut && rec.EventType == string(event.KindResult) {
					result = rec
				}
			}
			if result == nil {
				t.Fatalf("the import of an aborted run has no result event")
			}
			t.Logf("result of the aborted run: %s", result.Payload)
		})
	}
}

// storedSessionID finds the one session the CLI stored in the run's home.
func storedSessionID(t *testing.T, r *run) string {
	t.Helper()
	var pattern string
	switch r.c.name {
	case "claude":
		pattern = filepath.Join(r.getenv("CLAUDE_CONFIG_DIR"), "projects", "*", "*.jsonl")
	case "codex":
		pattern = filepath.Join(r.getenv("CODEX_HOME"), "sessions", "*", "*", "*", "rollout-*.jsonl")
	case "gemini":
		pattern = filepath.Join(r.home, ".gemini", "tmp", "*", "chats", "session-*.jsonl")
	}
	m, _ := filepath.Glob(pattern)
	if len(m) != 1 {
		t.Fatalf("%s: %d stored sessions, want 1", pattern, len(m))
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(b, []byte("\n"))
	switch r.c.name {
	case "claude":
		return strings.TrimSuffix(filepath.Base(m[0]), ".jsonl")
	case "codex":
		return gjson.GetBytes(first, "payload.id").String()
	}
	return gjson.GetBytes(first, "sessionId").String()
}

func waitUntil(t *testing.T, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting %s for %s", limit, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestImportRealCLIOpencodeDBInUse imports from the database of a running
// `opencode serve` (by path, and through its HTTP API) and checks that the
// database file is byte for byte what it was.
func TestImportRealCLIOpencodeDBInUse(t *testing.T) {
	r := newRun(t, realCLIs[3], "tools.json")
	r.record(t) // an opencode run leaves one session in the database
	port := func() int {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().(*net.TCPAddr).Port
	}()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	serve := exec.Command(r.bin, "serve", "--hostname", "127.0.0.1", "--port", fmt.Sprint(port))
	serve.Dir, serve.Env = r.project, r.env
	var serveOut bytes.Buffer
	serve.Stdout, serve.Stderr = &serveOut, &serveOut
	serve.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-serve.Process.Pid, syscall.SIGKILL); serve.Wait() })
	waitUntil(t, 60*time.Second, "opencode serve to answer GET /session", func() bool {
		resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(base + "/session")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	dbPath := filepath.Join(r.getenv("XDG_DATA_HOME"), "opencode", "opencode.db")
	before, err := os.ReadFile(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	wal, _ := os.ReadFile(dbPath + "-wal")
	out, code := r.evcapCmd(t, "import", dbPath, "-o", r.restored)
	if code != 0 {
		t.Fatalf("evcap import of the database in use exited %d:\n%s", code, out)
	}
	t.Logf("%s", bytes.TrimSpace(out))
	fromServer := filepath.Join(r.dir, "from-server.jsonl")
	out, code = r.evcapCmd(t, "import", base, "-o", fromServer)
	if code != 0 {
		t.Fatalf("evcap import %s exited %d:\n%s\nserve:\n%s", base, code, out, tail(serveOut.Bytes()))
	}
	t.Logf("%s", bytes.TrimSpace(out))
	after, err := os.ReadFile(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	walAfter, _ := os.ReadFile(dbPath + "-wal")
	if !bytes.Equal(before, after) || !bytes.Equal(wal, walAfter) {
		t.Errorf("the database (or its WAL) changed during the import: %d→%d bytes, WAL %d→%d", len(before), len(after), len(wal), len(walAfter))
	}
	for _, p := range []string{r.restored, fromServer} {
		if out, code := r.evcapCmd(t, "replay", "--against", r.live, p); code != 0 {
			t.Errorf("%s: evcap replay --against exited %d:\n%s", p, code, out)
		}
	}
}
