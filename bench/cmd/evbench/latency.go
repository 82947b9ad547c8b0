//go:build unix

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// childEnv makes evbench the latency child: it writes that many Claude
// text_delta lines, one per millisecond, each stamped with the monotonic
// clock, which every process on the machine shares.
const childEnv = "EVBENCH_TICK_CHILD"

func monoNow() int64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

const tickSession = `","session_id":"6c66e7d7-925f-4570-a30e-ed7b0f675c1d","parent_tool_use_id":null,"uuid":"d5d81ce2-a145-47dd-9316-145ee8b1e535"}`

func tickChild() {
	n, _ := strconv.Atoi(os.Getenv(childEnv))
	w := os.Stdout
	w.WriteString(`{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}},"session_id":"6c66e7d7-925f-4570-a30e-ed7b0f675c1d","parent_tool_use_id":null,"uuid":"d5d81ce2-a145-47dd-9316-145ee8b1e530"}` + "\n")
	w.WriteString(`{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}},"session_id":"6c66e7d7-925f-4570-a30e-ed7b0f675c1d","parent_tool_use_id":null,"uuid":"d5d81ce2-a145-47dd-9316-145ee8b1e531"}` + "\n")
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	line := make([]byte, 0, 512)
	for i := 0; i < n; i++ {
		<-tick.C
		line = append(line[:0], `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tick `...)
		line = strconv.AppendInt(line, monoNow(), 10)
		line = append(line, ` some streamed words of the answer "}}`...)
		line = append(line, tickSession[1:]...)
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			os.Exit(1)
		}
	}
}

// readTicks reads lines from r and returns each tick line's latency.
func readTicks(r io.Reader) []time.Duration {
	br := bufio.NewReaderSize(r, 64<<10)
	var out []time.Duration
	for {
		line, err := br.ReadSlice('\n')
		now := monoNow()
		if i := bytes.Index(line, []byte(`"text":"tick `)); i >= 0 {
			rest := line[i+len(`"text":"tick `):]
			if j := bytes.IndexByte(rest, ' '); j > 0 {
				if t, perr := strconv.ParseInt(string(rest[:j]), 10, 64); perr == nil {
					out = append(out, time.Duration(now-t))
				}
			}
		}
		if err != nil {
			return out
		}
	}
}

type tickRun struct {
	lat []time.Duration
	cpu time.Duration
}

func runTicks(argv []string, n int) (tickRun, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), childEnv+"="+strconv.Itoa(n))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return tickRun{}, err
	}
	if err := cmd.Start(); err != nil {
		return tickRun{}, err
	}
	lat := readTicks(out)
	if err := cmd.Wait(); err != nil {
		return tickRun{}, fmt.Errorf("%v: %w", argv, err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return tickRun{lat: lat, cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano())}, nil
}

func pct(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// latency compares a child writing straight into evbench's pipe with the
// same child under evcap record --passthrough. evcap's rusage includes the
// child it waited for, so the child's own CPU (from the direct run) is
// taken off before dividing by the lines.
func latency(c config) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	fmt.Printf("## record's added latency: a child writing one line per ms (%d lines), %d rounds\n\n", c.ticks, c.rounds)
	fmt.Println("| round | direct p50 µs | direct p99 µs | via record p50 µs | via record p99 µs | added p50 µs | added p99 µs | record CPU per line µs |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for r := 0; r < c.rounds; r++ {
		direct, err := runTicks([]string{self}, c.ticks)
		if err != nil {
			return err
		}
		via, err := runTicks([]string{c.evcap, "record", "--passthrough", "--render", "none", "-o", filepath.Join(c.dir, "ticks.jsonl"), "--", self}, c.ticks)
		if err != nil {
			return err
		}
		if len(direct.lat) != c.ticks || len(via.lat) != c.ticks {
			return fmt.Errorf("latency: read %d and %d tick lines, want %d", len(direct.lat), len(via.lat), c.ticks)
		}
		us := func(d time.Duration) float64 { return float64(d) / 1e3 }
		d50, d99, v50, v99 := pct(direct.lat, .5), pct(direct.lat, .99), pct(via.lat, .5), pct(via.lat, .99)
		perLine := (via.cpu - direct.cpu) / time.Duration(c.ticks)
		fmt.Printf("| %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f |\n", r+1, us(d50), us(d99), us(v50), us(v99),
			us(v50-d50), us(v99-d99), us(perLine))
	}
	fmt.Println("\nTargets: added p50 ≤ 100 µs, added p99 ≤ 1000 µs, CPU ≤ 100 µs per line (issue 16; issue 9 asked 150).")
	fmt.Println()
	return nil
}
