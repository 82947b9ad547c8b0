//go:build linux

package export_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/evcap/evcap/export"
	"github.com/evcap/evcap/source"
)

// jaeger is a real Jaeger v2 all-in-one (in-memory store) started for a
// test on 127.0.0.1: OTLP/HTTP in, the query API out.
type jaeger struct {
	cmd   *exec.Cmd
	OTLP  string // http://127.0.0.1:PORT
	Query string // http://127.0.0.1:PORT
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startJaeger runs the binary named by EVCAP_JAEGER (.ci/setup-jaeger.sh
// builds it). Without it the test is skipped, except in CI, where the
// setup hook must have provided it.
func startJaeger(t *testing.T) *jaeger {
	t.Helper()
	bin := os.Getenv("EVCAP_JAEGER")
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI: EVCAP_JAEGER is not set; .ci/setup-jaeger.sh should have built Jaeger")
		}
		t.Skip("no Jaeger: set EVCAP_JAEGER to a jaeger v2 binary (see .ci/setup-jaeger.sh)")
	}
	otlp, grpc, query := freePort(t), freePort(t), freePort(t)
	cmd := exec.Command(bin,
		fmt.Sprintf("--set=receivers.otlp.protocols.http.endpoint=127.0.0.1:%d", otlp),
		fmt.Sprintf("--set=receivers.otlp.protocols.grpc.endpoint=127.0.0.1:%d", grpc),
		fmt.Sprintf("--set=extensions.jaeger_query.http.endpoint=127.0.0.1:%d", query),
		// Its own metrics endpoint has a fixed port (8888) another
		// program may hold; the tests do not read it.
		"--set=service.telemetry.metrics.level=none")
	cmd.Dir = t.TempDir()
	logf, err := os.Create(filepath.Join(cmd.Dir, "jaeger.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	j := &jaeger{cmd: cmd, OTLP: fmt.Sprintf("http://127.0.0.1:%d", otlp), Query: fmt.Sprintf("http://127.0.0.1:%d", query)}
	t.Cleanup(func() { j.Stop(); logf.Close() })
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(j.Query + "/api/services")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("jaeger did not answer on %s within 60 s; its log:\n%s", j.Query, log)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return j
}

// Stop ends Jaeger (idempotent).
func (j *jaeger) Stop() {
	if j.cmd.Process != nil && j.cmd.ProcessState == nil {
		_ = j.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = j.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = j.cmd.Process.Kill()
			<-done
		}
	}
}

// jaegerTrace is the part of the query API's trace JSON the tests read.
type jaegerTrace struct {
	TraceID string       `json:"traceID"`
	Spans   []jaegerSpan `json:"spans"`
}

type jaegerSpan struct {
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
}

// getTrace polls the query API until the trace has want spans and its
// root (ingestion is asynchronous, and the root is sent last) or 20 s pass.
func (j *jaeger) getTrace(t *testing.T, id string, want int) jaegerTrace {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var last jaegerTrace
	for {
		resp, err := http.Get(j.Query + "/api/traces/" + id)
		if err == nil {
			var body struct {
				Data []jaegerTrace `json:"data"`
			}
			err = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if err == nil && len(body.Data) == 1 {
				last = body.Data[0]
				if len(last.Spans) >= want && hasRoot(last) {
					return last
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("trace %s: %d spans in Jaeger after 20 s, want %d", id, len(last.Spans), want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func hasRoot(tr jaegerTrace) bool {
	for _, sp := range tr.Spans {
		if len(sp.References) == 0 {
			return true
		}
	}
	return false
}

func tag(sp jaegerSpan, key string) (any, bool) {
	for _, tg := range sp.Tags {
		if tg.Key == key {
			return tg.Value, true
		}
	}
	return nil, false
}

func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}

// TestJaegerReceivesCorpus exports every corpus fixture to a real Jaeger
// over OTLP/HTTP and reads each trace back through Jaeger's query API:
// span names, the parent/child structure, tool names and counts, token
// attributes and error status must agree with the capture's normalized
// events.
func TestJaegerReceivesCorpus(t *testing.T) {
	j := startJaeger(t)
	ctx := context.Background()
	sender, err := export.NewSender(ctx, export.SenderOptions{Endpoint: j.OTLP, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	dirs := fixtureDirs(t)
	type sent struct {
		dir   string
		trace string
		spans int
	}
	var all []sent
	base := time.Now().UTC().Truncate(time.Second)
	for _, dir := range dirs {
		in, err := source.Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := export.Capture(ctx, in.Reader(), dir, export.Options{Base: base}, func(s *export.Span) { sender.Send(ctx, s) })
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, sent{dir: dir, trace: sum.TraceID.String(), spans: sum.Spans})
	}
	if err := sender.Close(ctx); err != nil {
		t.Fatalf("export to Jaeger: %v", err)
	}
	for _, s := range all {
		t.Run(filepath.Base(filepath.Dir(s.dir))+"/"+filepath.Base(s.dir), func(t *testing.T) {
			want := expect(t, s.dir)
			tr := j.getTrace(t, s.trace, s.spans)
			if len(tr.Spans) != s.spans {
				t.Fatalf("Jaeger holds %d spans, %d were sent", len(tr.Spans), s.spans)
			}
			ids := map[string]bool{}
			for _, sp := range tr.Spans {
				ids[sp.SpanID] = true
			}
			roots := 0
			tools := map[string]string{}
			failed := map[string]bool{}
			var chatIn, chatOut int64
			for _, sp := range tr.Spans {
				if len(sp.References) == 0 {
					roots++
					if v, _ := tag(sp, "gen_ai.operation.name"); v != "invoke_agent" {
						t.Errorf("root %q: gen_ai.operation.name = %v", sp.OperationName, v)
					}
					if want.fatal {
						if v, _ := tag(sp, "error"); v != true {
							t.Errorf("fatal run: root span has no error tag")
						}
					}
					continue
				}
				for _, ref := range sp.References {
					if ref.RefType != "CHILD_OF" || !ids[ref.SpanID] {
						t.Errorf("span %q: reference %s %s is not a span of the trace", sp.OperationName, ref.RefType, ref.SpanID)
					}
				}
				op, _ := tag(sp, "gen_ai.operation.name")
				switch op {
				case "execute_tool":
					id, _ := tag(sp, "gen_ai.tool.call.id")
					name, _ := tag(sp, "gen_ai.tool.name")
					tools[fmt.Sprint(id)] = fmt.Sprint(name)
					if sp.OperationName != "execute_tool "+fmt.Sprint(name) {
						t.Errorf("tool span named %q, tool %v", sp.OperationName, name)
					}
					if v, _ := tag(sp, "error"); v == true {
						failed[fmt.Sprint(id)] = true
					}
				case "chat":
					v, _ := tag(sp, "gen_ai.usage.input_tokens")
					chatIn += num(v)
					v, _ = tag(sp, "gen_ai.usage.output_tokens")
					chatOut += num(v)
				}
			}
			if roots != 1 {
				t.Errorf("%d root spans in Jaeger, want 1", roots)
			}
			if len(tools) != len(want.toolNames) {
				t.Errorf("%d tool spans in Jaeger, %d tool calls in the capture", len(tools), len(want.toolNames))
			}
			for id, name := range want.toolNames {
				if tools[id] != name {
					t.Errorf("tool call %s: Jaeger has %q, the capture %q", id, tools[id], name)
				}
				if failed[id] != want.toolFailed[id] {
					t.Errorf("tool call %s: error tag %v, capture says failed=%v", id, failed[id], want.toolFailed[id])
				}
			}
			if chatIn != want.chatIn || chatOut != want.chatOut {
				t.Errorf("chat tokens in Jaeger %d/%d, capture %d/%d", chatIn, chatOut, want.chatIn, want.chatOut)
			}
		})
	}
}
