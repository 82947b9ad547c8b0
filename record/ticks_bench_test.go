//go:build unix

package record

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/evcap/evcap/redact"
)

// tickEnv makes the test binary a child that writes that many short Claude
// text_delta lines, one per millisecond (see TestHelperTicker).
const tickEnv = "EVCAP_TEST_TICKS"

// TestHelperTicker is not a test: run as a child with EVCAP_TEST_TICKS=N it
// writes a message_start and a content_block_start line, then N
// content_block_delta lines one per millisecond (the shape of evbench's
// latency child), and exits.
func TestHelperTicker(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv(tickEnv))
	if err != nil {
		t.Skip("helper process only")
	}
	const session = `,"session_id":"6c66e7d7-925f-4570-a30e-ed7b0f675c1d","parent_tool_use_id":null,"uuid":"d5d81ce2-a145-47dd-9316-145ee8b1e53`
	w := os.Stdout
	w.WriteString(`{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}` + session + "0\"}\n")
	w.WriteString(`{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + session + "1\"}\n")
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	line := make([]byte, 0, 512)
	for i := range n {
		<-tick.C
		line = append(line[:0], `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tick `...)
		line = strconv.AppendInt(line, int64(i), 10)
		line = append(line, ` some streamed words of the answer "}}`...)
		line = append(line, session...)
		line = append(line, "5\"}\n"...)
		if _, err := w.Write(line); err != nil {
			os.Exit(1)
		}
	}
	os.Exit(0)
}

// BenchmarkTickChild records a child writing one short text delta line per
// millisecond (2000 lines), with the default redaction, normalizing and
// --passthrough, as evbench's latency case does, and reports evcap's own
// CPU time per line (getrusage of this process: the child is not counted).
// A CPU profile of it (-cpuprofile) shows the per-line fixed costs.
//
//	go test ./record -run '^$' -bench TickChild -benchtime 1x -count 3
func BenchmarkTickChild(b *testing.B) {
	red, err := redact.New(redact.Options{Home: "/home/someone", Project: "/work/project"})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("redact", func(b *testing.B) { tickChild(b, red) })
	b.Run("no-redact", func(b *testing.B) { tickChild(b, nil) })
}

func tickChild(b *testing.B, red *redact.Redactor) {
	const lines = 2000
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv(tickEnv, strconv.Itoa(lines))
	var cpu time.Duration
	var switches int64
	for range b.N {
		out := filepath.Join(b.TempDir(), "c.jsonl")
		before, sw := selfCPU()
		res, err := Command([]string{self, "-test.run=^TestHelperTicker$"}, Options{NewNormalizer: allNormalizers,
			Output: out, Redactor: red, Passthrough: io.Discard, Console: io.Discard})
		after, sw2 := selfCPU()
		cpu += after - before
		switches += sw2 - sw
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("record: %v, exit %d, notes %v", err, res.ExitCode, res.Notes)
		}
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N*lines), "cpu-µs/line")
	b.ReportMetric(float64(switches)/float64(b.N*lines), "ctxsw/line")
}

// selfCPU returns this process's CPU time (user and system) and its
// context switches (voluntary and not) so far.
func selfCPU() (time.Duration, int64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Nvcsw + ru.Nivcsw
}
