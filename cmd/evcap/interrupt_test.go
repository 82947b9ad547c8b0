//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests run the evcap binary as a real child process, send it SIGINT
// (or SIGTERM) while it works on a large capture, and check that it stops
// with the shell's exit status for the signal, soon, and without leaving
// half an output file behind. The timing bound is a hang guard only.

// interruptEnv is what the tests share: the evcap binary, built once, and
// the captures it runs on, made once.
type interruptEnv struct {
	bin        string
	small, big string
	// history is a stored Claude Code session (about 14 MB) made of
	// copies of a corpus session, for evcap import.
	history string
}

// newInterruptEnv builds evcap (or takes $EVCAP_BIN), records a capture
// from the corpus stream with evcap record --stdin, and makes a large one
// (about 120 MB) of copies of its records with new sequence numbers. At
// 30 MB replay (0.13 s), normalize, render and view finished before the
// signal on a quiet machine once they read each line once. All of it is
// removed when t ends.
func newInterruptEnv(t *testing.T) *interruptEnv {
	t.Helper()
	dir := t.TempDir()
	env := &interruptEnv{bin: os.Getenv("EVCAP_BIN"), small: filepath.Join(dir, "small.jsonl"), big: filepath.Join(dir, "big.jsonl")}
	if env.bin == "" {
		env.bin = filepath.Join(dir, "evcap")
		out, err := exec.Command("go", "build", "-o", env.bin, "github.com/evcap/evcap/cmd/evcap").CombinedOutput()
		if err != nil {
			t.Fatalf("go build ./cmd/evcap: %v\n%s", err, out)
		}
	}
	stream, err := os.Open(corpusStream)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	cmd := exec.Command(env.bin, "record", "--stdin", "--render", "none", "-o", env.small)
	cmd.Dir = dir
	cmd.Stdin = stream
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("evcap record --stdin: %v\n%s", err, out)
	}
	if err := repeatCapture(env.small, env.big, 160); err != nil {
		t.Fatal(err)
	}
	session, err := os.ReadFile(corpusSession)
	if err != nil {
		t.Fatal(err)
	}
	env.history = filepath.Join(dir, "history.jsonl")
	if err := os.WriteFile(env.history, bytes.Repeat(session, 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	return env
}

// corpusStream is the real Claude Code stream the captures are made of.
const corpusStream = "../../testdata/corpus/claude/long-text-partial.stdout.jsonl"

// corpusSession is a real stored Claude Code session the history is made of.
const corpusSession = "../../history/testdata/corpus/claude/long-text/history.jsonl"

var (
	sequenceField = regexp.MustCompile(`"sequence":(\d+)`)
	causeField    = regexp.MustCompile(`"cause":\[([\d,]+)\]\}$`)
	digits        = regexp.MustCompile(`\d+`)
)

// repeatCapture writes copies of the records between src's first record
// (capture.start) and its last (capture.end) n times to dst, each copy's
// sequence numbers and causes shifted past the previous copy's, so the
// result is a valid capture n times as long. Where each record's numbers
// are is found once; the copies only write the shifted numbers between
// the pieces (running the regexps over every copy cost seconds of the
// test binary's time under -race).
func repeatCapture(src, dst string, n int) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) < 3 {
		return fmt.Errorf("%s: %d records, want a start, an end and something between", src, len(lines))
	}
	first, body, last := lines[0], lines[1:len(lines)-1], lines[len(lines)-1]
	// A body record as text[0] num[0] text[1] … num[k-1] text[k]: num are
	// its sequence number and its causes, written shifted in each copy.
	type pieces struct {
		text []string
		num  []int
	}
	split := make([]pieces, len(body))
	for i, l := range body {
		var at [][]int // [start, end) of each number, in order
		loc := sequenceField.FindStringSubmatchIndex(l)
		if loc == nil {
			return fmt.Errorf("%s: record %d has no sequence", src, i+2)
		}
		at = append(at, loc[2:4])
		if c := causeField.FindStringSubmatchIndex(l); c != nil {
			for _, d := range digits.FindAllStringIndex(l[c[2]:c[3]], -1) {
				at = append(at, []int{c[2] + d[0], c[2] + d[1]})
			}
		}
		prev := 0
		for _, a := range at {
			v, err := strconv.Atoi(l[a[0]:a[1]])
			if err != nil {
				return err
			}
			split[i].text = append(split[i].text, l[prev:a[0]])
			split[i].num = append(split[i].num, v)
			prev = a[1]
		}
		split[i].text = append(split[i].text, l[prev:])
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, first)
	var num []byte
	for k := range n {
		by := k * len(body)
		for _, p := range split {
			for j, v := range p.num {
				w.WriteString(p.text[j])
				num = strconv.AppendInt(num[:0], int64(v+by), 10)
				w.Write(num)
			}
			w.WriteString(p.text[len(p.num)])
			w.WriteByte('\n')
		}
	}
	loc := sequenceField.FindStringIndex(last)
	fmt.Fprintln(w, last[:loc[0]]+fmt.Sprintf(`"sequence":%d`, n*len(body)+2)+last[loc[1]:])
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// interruptCase is one command to interrupt: its arguments (given the
// test's inputs and a scratch directory) and the output it must not leave.
type interruptCase struct {
	name string
	args func(env *interruptEnv, dir string) []string
	// output is the file or directory (under dir) that must not exist
	// after the interrupted run; "" when the command writes to stdout.
	output string
}

var interruptCases = []interruptCase{
	{"sanitize", func(env *interruptEnv, dir string) []string {
		return []string{"sanitize", env.big, "-o", filepath.Join(dir, "out.jsonl")}
	}, "out.jsonl"},
	{"sanitize-stdout", func(env *interruptEnv, dir string) []string { return []string{"sanitize", env.big} }, ""},
	{"validate", func(env *interruptEnv, dir string) []string { return []string{"validate", env.big} }, ""},
	{"replay", func(env *interruptEnv, dir string) []string { return []string{"replay", env.big} }, ""},
	{"cat", func(env *interruptEnv, dir string) []string { return []string{"cat", env.big} }, ""},
	{"normalize", func(env *interruptEnv, dir string) []string { return []string{"normalize", env.big} }, ""},
	{"render", func(env *interruptEnv, dir string) []string { return []string{"render", env.big} }, ""},
	{"census", func(env *interruptEnv, dir string) []string { return []string{"census", env.big} }, ""},
	{"scan", func(env *interruptEnv, dir string) []string { return []string{"scan", env.big} }, ""},
	{"view", func(env *interruptEnv, dir string) []string {
		return []string{"view", env.big, "-o", filepath.Join(dir, "out.html")}
	}, "out.html"},
	{"bundle", func(env *interruptEnv, dir string) []string {
		return []string{"bundle", env.big, "-o", filepath.Join(dir, "out.zip")}
	}, "out.zip"},
	{"promote", func(env *interruptEnv, dir string) []string {
		return []string{"promote", env.big, "--name", "big", "--dir", filepath.Join(dir, "fixtures")}
	}, "fixtures"},
	{"minimize", func(env *interruptEnv, dir string) []string {
		return []string{"minimize", env.big, "--exec", "cat", "-o", filepath.Join(dir, "min.jsonl")}
	}, "min.jsonl"},
	{"import", func(env *interruptEnv, dir string) []string {
		return []string{"import", "--provider", "claude", env.history, "-o", filepath.Join(dir, "out.jsonl")}
	}, "out.jsonl"},
	{"export", func(env *interruptEnv, dir string) []string { return []string{"export", "--dry-run", env.big} }, ""},
}

// signalAfter is how long the command runs before the signal (and it must
// also have read minRead bytes: past start-up): short of the large
// capture's end. At 200 ms, replay and normalize, which now read it at
// about 600 MB/s, sometimes finished first (CI of 19b9287, 0.17 s).
const signalAfter = 50 * time.Millisecond

func TestInterrupt(t *testing.T) {
	env := newInterruptEnv(t)
	for _, c := range interruptCases {
		t.Run("SIGINT/"+c.name, func(t *testing.T) {
			dir := t.TempDir()
			code, _ := interruptRun(t, env.bin, c.args(env, dir), syscall.SIGINT, 1<<20)
			if code != 130 {
				t.Errorf("exit status %d after SIGINT, want 130", code)
			}
			checkNoOutput(t, dir, c.output)
		})
	}
	t.Run("FIFO/sanitize", func(t *testing.T) {
		got := fifoRun(t, env, "sanitize")
		// Read once from a FIFO, a capture sanitizes as it does from a
		// pipe on standard input.
		cmd := exec.Command(env.bin, "sanitize", "-")
		cmd.Dir = t.TempDir()
		f, err := os.Open(env.small)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd.Stdin = f
		want, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("sanitize FIFO: %d bytes, differs from sanitize - on the same capture (%d bytes)", len(got), len(want))
		}
	})
	t.Run("FIFO/replay", func(t *testing.T) {
		got := fifoRun(t, env, "replay")
		if !bytes.HasSuffix(got, []byte("(native): ok\n")) {
			t.Errorf("replay FIFO printed %q, want its native check ok", got)
		}
	})
	// Every command that reads a capture from a FIFO, blocked in that
	// read when the signal comes.
	for _, c := range []struct {
		command string
		args    []string // after the FIFO; OUT is out in a directory of its own
		out     string   // the output that must not exist after the signal
	}{
		{"sanitize", nil, ""}, {"replay", nil, ""}, {"normalize", nil, ""}, {"render", nil, ""},
		{"validate", nil, ""}, {"cat", nil, ""}, {"view", nil, ""}, {"census", nil, ""}, {"scan", nil, ""},
		{"play", nil, ""}, {"export", []string{"--dry-run"}, ""},
		{"bundle", []string{"-o", "OUT"}, "out.zip"}, {"promote", []string{"--name", "fx", "--dir", "OUT"}, "fixtures"},
	} {
		command := c.command
		t.Run("SIGINT/"+command+"-FIFO", func(t *testing.T) {
			// The writer sends part of the capture and then goes quiet,
			// the FIFO still open: the command is blocked in a read when
			// the signal comes.
			dir := t.TempDir()
			fifo := filepath.Join(dir, "capture.fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			data, err := os.ReadFile(env.small)
			if err != nil {
				t.Fatal(err)
			}
			quiet := make(chan struct{})
			defer close(quiet)
			go func() {
				f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				defer f.Close()
				f.Write(data[:len(data)/2])
				<-quiet
			}()
			// The signal goes once the command has read from the FIFO
			// (more than the runtime reads at start-up, before the
			// handler is installed): a byte alone could be the
			// runtime's, and the signal would kill a process that had
			// not set its handler yet.
			outDir := t.TempDir()
			args := []string{command, fifo}
			for _, a := range c.args {
				if a == "OUT" {
					a = filepath.Join(outDir, c.out)
				}
				args = append(args, a)
			}
			code, _ := interruptRun(t, env.bin, args, syscall.SIGINT, int64(min(len(data)/2, 16<<10)))
			if code != 130 {
				t.Errorf("exit status %d after SIGINT, want 130", code)
			}
			if c.out != "" {
				checkNoOutput(t, outDir, c.out)
			}
		})
	}
	t.Run("SIGTERM/sanitize", func(t *testing.T) {
		dir := t.TempDir()
		code, _ := interruptRun(t, env.bin, []string{"sanitize", env.big, "-o", filepath.Join(dir, "out.jsonl")}, syscall.SIGTERM, 1<<20)
		if code != 143 {
			t.Errorf("exit status %d after SIGTERM, want 143", code)
		}
		checkNoOutput(t, dir, "out.jsonl")
	})
}

// TestRunExitStatusAfterSignal checks, in process, that run reports a
// signal-cancelled context as the shell does, whatever the command made of
// the cancellation, and that a plain cancellation is not taken for one.
func TestRunExitStatusAfterSignal(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(interrupted{sig: c.sig})
		var stderr bytes.Buffer
		got := run(ctx, []string{"validate", "-"}, strings.NewReader(""), io.Discard, &stderr)
		if got != c.want {
			t.Errorf("run after %v: exit status %d, want %d (stderr %q)", c.sig, got, c.want, stderr.String())
		}
		if !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("run after %v said %q, want it to say it was interrupted", c.sig, stderr.String())
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if code := interruptCode(ctx); code != 0 {
		t.Errorf("interruptCode of a context cancelled without a signal: %d, want 0", code)
	}
}

// fifoRun runs evcap COMMAND FIFO while the test writes the small capture
// into the FIFO, and returns its standard output. The command must read
// the FIFO once, to its end, and succeed.
func fifoRun(t *testing.T, env *interruptEnv, command string) []byte {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "capture.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	data, err := os.ReadFile(env.small)
	if err != nil {
		t.Fatal(err)
	}
	wrote := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // waits for the reader
		if err != nil {
			wrote <- err
			return
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		wrote <- err
	}()
	cmd := exec.Command(env.bin, command, fifo)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		// Unblock the writer if the command never opened the FIFO.
		if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			r.Close()
		}
		t.Fatalf("evcap %s FIFO hangs; stderr:\n%s", command, stderr.String())
	}
	if err != nil {
		t.Fatalf("evcap %s FIFO: %v; stderr:\n%s", command, err, stderr.String())
	}
	if err := <-wrote; err != nil {
		t.Fatalf("writing the FIFO: %v", err)
	}
	return stdout.Bytes()
}

// interruptRun starts evcap with args, sends sig once it has run
// signalAfter and read minRead bytes, and returns its exit status and standard error. It fails the test when the
// command ended before the signal (the input is too small to interrupt)
// or took more than the hang guard to stop.
func interruptRun(t *testing.T, bin string, args []string, sig syscall.Signal, minRead int64) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// The signal goes once the command has run signalAfter and read
	// minRead bytes: then it is past start-up (its handler is installed
	// before it opens anything), however loaded the machine is.
	started := time.After(signalAfter)
	deadline := time.After(time.Minute)
	for waited := false; !waited || !hasRead(cmd.Process.Pid, minRead); {
		select {
		case err := <-done:
			t.Fatalf("evcap %s ended before the signal (%v); stderr:\n%s", strings.Join(args, " "), err, stderr.String())
		case <-started:
			waited = true
			started = nil
		case <-deadline:
			cmd.Process.Kill()
			<-done
			t.Fatalf("evcap %s read under %d bytes in a minute", strings.Join(args, " "), minRead)
		case <-time.After(5 * time.Millisecond):
		}
	}
	sent := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	const hangGuard = 5 * time.Second
	var err error
	select {
	case err = <-done:
	case <-time.After(hangGuard):
		cmd.Process.Kill()
		<-done
		t.Fatalf("evcap %s still running %v after %v", strings.Join(args, " "), hangGuard, sig)
	}
	t.Logf("stopped %v after %v", time.Since(sent).Round(time.Millisecond), sig)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// hasRead reports whether process pid has read at least n bytes with
// read(2) and its kin (rchar in /proc/pid/io). Where that file does not
// exist (not Linux) it reports true, and the signal goes after
// signalAfter alone; a process that has exited has not read enough.
func hasRead(pid int, n int64) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		_, statErr := os.Stat("/proc/self/io")
		return statErr != nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			got, _ := strconv.ParseInt(v, 10, 64)
			return got >= n
		}
	}
	return true
}

// checkNoOutput fails when the interrupted run left its output, or any
// temporary file, in dir.
func checkNoOutput(t *testing.T, dir, output string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == output {
			t.Errorf("the interrupted run left %s", e.Name())
		} else {
			t.Errorf("the interrupted run left %s in its output directory", e.Name())
		}
	}
}
