//go:build unix

package record_test

// The official TypeScript SDKs as real clients nobody here wrote: the
// Claude Agent SDK (query() with canUseTool and streaming input) and the
// Codex SDK (runStreamed()) each run a session through evcap shim against
// the real CLI and the scripted model server; then the same client code
// runs with evcap play CAPTURE as its CLI executable and must receive the
// same messages, with the model server seeing no request. A Node program
// that knows nothing of evcap is captured through the shim too.
//
// Needs node, the SDKs (.ci/setup-sdks.sh: EVCAP_SDK_DIR) and the CLIs
// (EVCAP_CLI_DIR); run inside the network namespace like the other
// RealCLI tests (.ci/after-realcli.sh).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fakemodel"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/redact"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

const sdkClient = "testdata/sdk/client.mjs"

// sdkPrompt is what every client asks.
const sdkPrompt = "Please write the notes file."

// sdkRun is one run of the Node client.
type sdkRun struct {
	stdout, stderr []byte
	exit           int
}

func runNode(t *testing.T, dir string, env []string, args ...string) sdkRun {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not on PATH")
	}
	client, err := filepath.Abs(sdkClient)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, append([]string{client}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("node %s did not finish in 3 minutes\nstderr:\n%s", strings.Join(args, " "), tail(stderr.Bytes(), 3000))
	}
	r := sdkRun{stdout: stdout.Bytes(), stderr: stderr.Bytes()}
	var ee *exec.ExitError
	switch {
	case errors.As(werr, &ee):
		r.exit = ee.ExitCode()
	case werr != nil:
		t.Fatal(werr)
	}
	return r
}

// withEnv returns env with the given KEY=VALUE entries set (replacing
// earlier ones).
func withEnv(env []string, kv ...string) []string {
	out := append([]string(nil), env...)
	for _, e := range kv {
		k, _, _ := strings.Cut(e, "=")
		for i := len(out) - 1; i >= 0; i-- {
			if strings.HasPrefix(out[i], k+"=") {
				out = append(out[:i], out[i+1:]...)
			}
		}
		out = append(out, e)
	}
	return out
}

func envValue(env []string, k string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], k+"="); ok {
			return v
		}
	}
	return ""
}

// volatile are the keys whose values differ from run to run (ids, times,
// costs) and are left out of the comparison.
var volatile = map[string]bool{"uuid": true, "session_id": true, "thread_id": true, "id": true, "tool_use_id": true,
	"request_id": true, "timestamp": true, "duration_ms": true, "duration_api_ms": true, "ttft_ms": true,
	"ttft_stream_ms": true, "time_to_request_ms": true, "total_cost_usd": true, "costUSD": true}

func dropVolatile(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if volatile[k] {
				delete(x, k)
				continue
			}
			x[k] = dropVolatile(e)
		}
	case []any:
		for i, e := range x {
			x[i] = dropVolatile(e)
		}
	}
	return v
}

// messages decodes the client's output lines; with red, each message is
// first redacted as evcap redacted the capture the player reads, so that
// the machine's paths compare equal to their placeholders.
func messages(t *testing.T, out []byte, red *redact.Redactor) []any {
	t.Helper()
	var msgs []any
	for _, l := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var wrap struct {
			Kind string          `json:"kind"`
			V    json.RawMessage `json:"v"`
		}
		if err := json.Unmarshal(l, &wrap); err != nil {
			t.Fatalf("client output %q: %v", l, err)
		}
		b := []byte(wrap.V)
		if red != nil {
			if r, _, err := red.JSON(b); err == nil {
				b = r
			}
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, map[string]any{"kind": wrap.Kind, "v": dropVolatile(v)})
	}
	return msgs
}

// playScript writes an executable that runs evcap play on capture with
// whatever arguments the SDK gives the CLI.
func playScript(t *testing.T, evcap, capture, name string) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(fmt.Sprintf("#!/bin/sh\nexec '%s' play --speed max '%s' \"$@\"\n", evcap, capture)), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func sdkDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("EVCAP_SDK_DIR")
	for _, pkg := range []string{"@anthropic-ai/claude-agent-sdk", "@openai/codex-sdk"} {
		if dir == "" {
			t.Skip("EVCAP_SDK_DIR unset: the SDKs are installed by .ci/setup-sdks.sh")
		}
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			t.Skipf("%s not installed under EVCAP_SDK_DIR=%s (.ci/setup-sdks.sh)", pkg, dir)
		}
	}
	return dir
}

// shimDir writes evcap's stand-ins for the CLIs into a new directory.
func shimDir(t *testing.T, evcap string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shims")
	out, err := exec.Command(evcap, "shim", "--dir", dir, "claude", "codex").CombinedOutput()
	if err != nil {
		t.Fatalf("evcap shim: %v\n%s", err, out)
	}
	return dir
}

// captureRedactor is the redaction evcap applied in the shim: this run's
// home, project (the CLI's working directory) and temp directory.
func captureRedactor(t *testing.T, su *setup) *redact.Redactor {
	t.Helper()
	red, err := redact.New(redact.Options{Home: su.home, Project: su.project, Temp: []string{envValue(su.env, "TMPDIR")}})
	if err != nil {
		t.Fatal(err)
	}
	return red
}

func stageCount(recs []*envelope.Record, stage envelope.Stage, eventType string) int {
	n := 0
	for _, r := range recs {
		if r.Stage == stage && (eventType == "" || r.EventType == eventType) {
			n++
		}
	}
	return n
}

func TestSDKRealCLI(t *testing.T) {
	sdks := sdkDir(t)
	for _, c := range []struct {
		name     string
		cli      fakemodel.CLI
		scenario string
	}{
		{"claude", fakemodel.ClaudeCode, "../../record/testdata/sdk/permission.json"},
		{"codex", fakemodel.Codex, "tools.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			su := newSetup(t, c.cli, c.scenario)
			shims := shimDir(t, su.evcap)
			capPath := filepath.Join(su.dir, "capture.jsonl")
			env := withEnv(su.env,
				"PATH="+shims+string(os.PathListSeparator)+envValue(su.env, "PATH"),
				"EVCAP_SDK_DIR="+sdks, "CLIENT_CLI="+filepath.Join(shims, c.name),
				"CLIENT_PROMPT="+sdkPrompt, "CLIENT_CWD="+su.project, "EVCAP_CAPTURE="+capPath)

			start := time.Now()
			live := runNode(t, su.project, env, c.name)
			if live.exit != 0 {
				t.Fatalf("live run through the shim exited %d\nstderr:\n%s", live.exit, tail(live.stderr, 3000))
			}
			liveTook := time.Since(start)
			served := su.srv.Stats()
			recs := corpustest.Records(t, capPath)
			if _, stderr, code := evcapRun(t, "validate", capPath); code != 0 {
				t.Fatalf("evcap validate: exit %d\n%s", code, stderr)
			}
			nOut := stageCount(recs, envelope.StageNativeOut, "")
			t.Logf("live: %d client messages in %s; capture %d records (native_in %d, native_out %d); server %+v",
				bytes.Count(live.stdout, []byte("\n")), liveTook.Round(time.Millisecond), len(recs),
				stageCount(recs, envelope.StageNativeIn, ""), nOut, served)
			if nOut == 0 {
				t.Fatal("the capture has no native_out record: what the SDK wrote to the CLI was not recorded")
			}
			if c.name == "claude" {
				if !bytes.Contains(live.stdout, []byte(`"kind":"canUseTool"`)) {
					t.Fatal("the CLI never asked canUseTool: the scenario did not exercise the permission round trip")
				}
				for _, want := range []struct {
					stage envelope.Stage
					typ   string
				}{
					{envelope.StageNativeOut, "control_request"}, {envelope.StageNativeOut, "user"},
					{envelope.StageNativeOut, "control_response"}, {envelope.StageNativeIn, "control_request"},
				} {
					if stageCount(recs, want.stage, want.typ) == 0 {
						t.Errorf("no %s %s record", want.stage, want.typ)
					}
				}
			}

			// The same client, with evcap play as its CLI and no model server.
			env = withEnv(env, "CLIENT_CLI="+playScript(t, su.evcap, capPath, c.name), "EVCAP_CAPTURE=")
			played := runNode(t, su.project, env, c.name)
			if played.exit != 0 {
				t.Fatalf("run against evcap play exited %d\nstderr:\n%s", played.exit, tail(played.stderr, 3000))
			}
			if after := su.srv.Stats(); after.Requests != served.Requests {
				t.Errorf("the model server was asked during play: %+v, then %+v", served, after)
			}
			want := messages(t, live.stdout, captureRedactor(t, su))
			got := messages(t, played.stdout, nil)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("the client received other messages from evcap play than from the live CLI (-live +play):\n%s", d)
			}
			t.Logf("play: the client received the same %d messages", len(got))
		})
	}

	// A program written without evcap in mind: with the shim first on PATH
	// it is captured; against a deterministic CLI (evcap play of that
	// capture) its output and exit status are byte-identical with and
	// without the shim.
	t.Run("plain", func(t *testing.T) {
		// Each live run gets a fresh home, project and server: the CLI
		// keeps state in its home (sessions) that changes the next run's
		// requests.
		su0 := newSetup(t, fakemodel.ClaudeCode, "tools.json")
		without := runNode(t, su0.project, withEnv(su0.env, "CLIENT_PROMPT="+sdkPrompt, "CLIENT_CWD="+su0.project), "plain")
		su := newSetup(t, fakemodel.ClaudeCode, "tools.json")
		shims := shimDir(t, su.evcap)
		capPath := filepath.Join(su.dir, "plain.jsonl")
		base := withEnv(su.env, "CLIENT_PROMPT="+sdkPrompt, "CLIENT_CWD="+su.project)
		path := envValue(su.env, "PATH")
		with := runNode(t, su.project, withEnv(base, "PATH="+shims+string(os.PathListSeparator)+path, "EVCAP_CAPTURE="+capPath), "plain")
		if without.exit != 0 || with.exit != 0 {
			t.Fatalf("exit %d without the shim, %d with it\nstderr:\n%s", without.exit, with.exit, tail(with.stderr, 3000))
		}
		red := captureRedactor(t, su)
		var a, b []any
		for _, l := range bytes.Split(bytes.TrimSpace(without.stdout), []byte("\n")) {
			a = append(a, messages(t, []byte(`{"kind":"line","v":`+string(l)+"}\n"), captureRedactor(t, su0))...)
		}
		for _, l := range bytes.Split(bytes.TrimSpace(with.stdout), []byte("\n")) {
			b = append(b, messages(t, []byte(`{"kind":"line","v":`+string(l)+"}\n"), red)...)
		}
		if d := cmp.Diff(a, b); d != "" {
			t.Errorf("the real CLI's output through the shim differs beyond ids and times (-without +with):\n%s", d)
		}
		recs := corpustest.Records(t, capPath)
		if n := stageCount(recs, envelope.StageNativeIn, ""); n != len(a) {
			t.Errorf("the capture has %d native_in records, the program printed %d lines", n, len(a))
		}
		if len(with.stderr) != 0 || len(without.stderr) != 0 {
			t.Errorf("stderr: %q without the shim, %q with it", without.stderr, with.stderr)
		}

		// Deterministic CLI: byte for byte.
		played := filepath.Dir(playScript(t, su.evcap, capPath, "claude"))
		detPath := played + string(os.PathListSeparator) + path
		cap2 := filepath.Join(su.dir, "plain2.jsonl")
		w0 := runNode(t, su.project, withEnv(base, "PATH="+detPath), "plain")
		w1 := runNode(t, su.project, withEnv(base, "PATH="+shims+string(os.PathListSeparator)+detPath, "EVCAP_CAPTURE="+cap2), "plain")
		if !bytes.Equal(w0.stdout, w1.stdout) || !bytes.Equal(w0.stderr, w1.stderr) || w0.exit != w1.exit {
			t.Errorf("with a deterministic CLI the program's output differs with the shim: stdout %d vs %d bytes (equal %v), stderr %q vs %q, exit %d vs %d",
				len(w0.stdout), len(w1.stdout), bytes.Equal(w0.stdout, w1.stdout), w0.stderr, w1.stderr, w0.exit, w1.exit)
		}
		if _, err := os.Stat(cap2); err != nil {
			t.Errorf("no capture of the shimmed run: %v", err)
		}
		t.Logf("plain: %d lines, exit %d; deterministic CLI: %d stdout bytes identical with and without the shim", len(a), with.exit, len(w1.stdout))
	})
}

// TestRecordRealCLIOpencodeSession: evcap record --opencode drives one
// session of a real opencode serve (subscribe, create, prompt), records it
// from its first event, with its own requests as native_out, stops when
// the session is idle, and the capture replays and promotes like any.
func TestRecordRealCLIOpencodeSession(t *testing.T) {
	skipShort(t)
	v := variant{"opencode-session", fakemodel.OpenCode, "opencode", nil}
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
	capPath := filepath.Join(su.dir, "capture.jsonl")
	rec := exec.Command(su.evcap, "record", "--opencode", base, "--prompt", "What is in this project? List the files, then read the README and summarise it.",
		"--model", "fake/fake-model", "--permission", "once", "-o", capPath, "--color", "never")
	rec.Dir, rec.Env = su.project, su.env
	var recErr bytes.Buffer
	rec.Stdout, rec.Stderr = io.Discard, &recErr
	start := time.Now()
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	recDone := make(chan error, 1)
	go func() { recDone <- rec.Wait() }()
	var err error
	select {
	case err = <-recDone:
	case <-time.After(90 * time.Second):
		rec.Process.Kill()
		<-recDone
		t.Fatalf("evcap record --opencode did not stop after the session went idle\nstderr:\n%s", recErr.String())
	}
	if err != nil {
		t.Fatalf("evcap record --opencode: %v\nstderr:\n%s", err, recErr.String())
	}
	r := su.read(t, v, capPath, 0, recErr.Bytes(), time.Since(start))
	var outs []string
	firstIn := ""
	for _, rec := range r.records {
		switch {
		case rec.Stage == envelope.StageNativeOut:
			outs = append(outs, gjson.GetBytes(rec.Payload, "method").String()+" "+gjson.GetBytes(rec.Payload, "path").String())
		case rec.Stage == envelope.StageNativeIn && firstIn == "":
			firstIn = gjson.GetBytes(rec.Payload, "type").String()
		}
	}
	t.Logf("native_out: %q; first native_in: %s", outs, firstIn)
	if len(outs) < 3 || outs[0] != "GET /event" || outs[1] != "POST /session" || !strings.HasSuffix(outs[2], "/message") {
		t.Errorf("native_out records %q, want GET /event, POST /session, POST /session/ID/message", outs)
	}
	if firstIn != "session.created" {
		t.Errorf("the first native_in record is %q, want the session's session.created", firstIn)
	}
	calls := toolCalls(r.events(t))
	if len(calls) != 2 || calls[0].name != "bash" || calls[1].name != "read" {
		t.Errorf("tool calls %q, want bash then read", calls)
	}
	if out, stderr, code := evcapRun(t, "replay", capPath); code != 0 {
		t.Errorf("evcap replay: exit %d\n%s%s", code, out, stderr)
	}
	fxDir := t.TempDir()
	if out, stderr, code := evcapRun(t, "promote", capPath, "--name", "opencode-session", "--dir", fxDir); code != 0 {
		t.Errorf("evcap promote: exit %d\n%s%s", code, out, stderr)
	}
}
