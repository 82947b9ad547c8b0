//go:build linux

package export_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/export"
	"github.com/evcap/evcap/fakemodel"
)

// evcapBin is $EVCAP_BIN (.ci/after-realcli.sh builds it outside the
// network namespace) or a binary built here.
func evcapBin(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("EVCAP_BIN"); p != "" {
		return p
	}
	p := filepath.Join(t.TempDir(), "evcap")
	if out, err := exec.Command("go", "build", "-o", p, "github.com/evcap/evcap/cmd/evcap").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/evcap: %v\n%s", err, out)
	}
	return p
}

// liveRun is one `evcap record --otlp` run of the real Claude Code CLI
// against the scripted model server.
type liveRun struct {
	exit    int
	stderr  string
	records []*envelope.Record
	srv     *fakemodel.Server
}

// recordLive runs claude under evcap record --otlp endpoint; during the
// run, once the model server has answered its first request, midRun is
// called (nil: nothing).
func recordLive(t *testing.T, endpoint string, midRun func()) liveRun {
	t.Helper()
	bin, err := fakemodel.LookCLI(fakemodel.ClaudeCode, os.Getenv("EVCAP_CLI_DIR"))
	if errors.Is(err, fakemodel.ErrCLINotFound) {
		// The main test run has no CLIs; .ci/after-realcli.sh runs this
		// test again with them, inside a loopback-only network namespace.
		t.Skipf("claude not installed (set EVCAP_CLI_DIR): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	sc, err := fakemodel.LoadScenarioFile("../fakemodel/testdata/tools.json")
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
	if err := os.WriteFile(filepath.Join(project, "README.md"), []byte("# demo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakemodel.New(sc, fakemodel.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	defer func() { cancel(); <-served }()
	env, err := fakemodel.Prepare(fakemodel.ClaudeCode, "http://"+ln.Addr().String(), home)
	if err != nil {
		t.Fatal(err)
	}
	env = append(env, "PATH="+fakemodel.PathWithNode(bin, os.Getenv("PATH")))
	capPath := filepath.Join(dir, "capture.jsonl")
	args := append([]string{"record", "-o", capPath, "--render", "none", "--otlp", endpoint, "--", bin},
		fakemodel.HeadlessArgs(fakemodel.ClaudeCode, project, "List the files, then read the README.")...)
	cmd := exec.Command(evcapBin(t), args...)
	cmd.Dir, cmd.Env = project, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if midRun != nil {
		deadline := time.Now().Add(2 * time.Minute)
		for srv.Stats().Main == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		midRun()
	}
	err = cmd.Wait()
	run := liveRun{stderr: stderr.String(), srv: srv}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		run.exit = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	f, err := os.Open(capPath)
	if err != nil {
		t.Fatalf("capture: %v\nstderr:\n%s", err, run.stderr)
	}
	defer f.Close()
	rd := envelope.NewReader(f, capPath, envelope.ReaderOptions{})
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("capture is not valid: %v", err)
		}
		run.records = append(run.records, rec.Clone())
	}
	return run
}

// toolCallsOf counts the distinct tool calls among normalized events.
func toolCallsOf(t *testing.T, recs []*envelope.Record) map[string]bool {
	ids := map[string]bool{}
	for _, r := range recs {
		if r.Stage != envelope.StageNormalizedOut {
			continue
		}
		k := gjson.GetBytes(r.Payload, "kind").String()
		if k == string(event.KindTool) {
			ids[gjson.GetBytes(r.Payload, "toolCallId").String()] = true
		}
	}
	return ids
}

func endOf(t *testing.T, recs []*envelope.Record) gjson.Result {
	t.Helper()
	last := recs[len(recs)-1]
	if last.EventType != envelope.EventCaptureEnd {
		t.Fatalf("capture does not end with capture.end (last: %s)", last.EventType)
	}
	return gjson.ParseBytes(last.Payload)
}

// TestExportRealCLILive records a real Claude Code run with --otlp into a
// real Jaeger and finds the run's trace there, built as the run went;
// then records the same run again with Jaeger stopped part-way: the
// capture is complete and valid, the exit status unchanged, and the loss
// is said in a warning, not as a failure.
func TestExportRealCLILive(t *testing.T) {
	j := startJaeger(t)

	run := recordLive(t, j.OTLP, nil)
	if run.exit != 0 {
		t.Fatalf("evcap record --otlp exited %d\n%s", run.exit, run.stderr)
	}
	tools := toolCallsOf(t, run.records)
	if len(tools) < 2 {
		t.Fatalf("the tools scenario made %d tool calls, want >= 2", len(tools))
	}
	captureID := run.records[0].CaptureID
	// root + one span per tool call, at least; chat spans come on top.
	tr := j.getTrace(t, export.TraceIDFor(captureID).String(), 1+len(tools))
	got := map[string]bool{}
	roots := 0
	for _, sp := range tr.Spans {
		if len(sp.References) == 0 {
			roots++
			if v, _ := tag(sp, "evcap.capture.id"); v != captureID {
				t.Errorf("root span's evcap.capture.id = %v, want %s", v, captureID)
			}
		}
		if v, ok := tag(sp, "gen_ai.tool.call.id"); ok {
			got[v.(string)] = true
		}
	}
	if roots != 1 {
		t.Errorf("%d root spans, want 1", roots)
	}
	for id := range tools {
		if !got[id] {
			t.Errorf("tool call %s of the capture has no span in Jaeger", id)
		}
	}
	t.Logf("live export: %d records, %d spans in Jaeger, %d tool calls", len(run.records), len(tr.Spans), len(tools))

	stopped := recordLive(t, j.OTLP, j.Stop)
	if stopped.exit != run.exit {
		t.Fatalf("with Jaeger stopped mid-run evcap exited %d, %d with it up\n%s", stopped.exit, run.exit, stopped.stderr)
	}
	end := endOf(t, stopped.records)
	if n := len(toolCallsOf(t, stopped.records)); n != len(tools) {
		t.Errorf("with Jaeger stopped the capture holds %d tool calls, %d with it up", n, len(tools))
	}
	if end.Get("exitCode").Int() != 0 {
		t.Errorf("capture.end exitCode %v", end.Get("exitCode"))
	}
	t.Logf("with Jaeger stopped: exit %d, notes %v, stderr tail %q", stopped.exit, end.Get("notes"), tailString(stopped.stderr, 300))
}

func tailString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
