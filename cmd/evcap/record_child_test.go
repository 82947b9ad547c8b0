package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"
)

// testChild is the evcap-testchild command of the record scripts: a
// stand-in agent that runs its arguments as a little program, so each
// script can make a child misbehave in exactly one way.
//
//	print TEXT       write TEXT and a newline to stdout
//	printn TEXT      write TEXT without a newline
//	hex HEX          write raw bytes (invalid UTF-8, say)
//	cat FILE         copy FILE to stdout
//	big N            write a JSON line of N bytes ({"type":"big","data":"xxx…"})
//	stderr TEXT      write TEXT and a newline to stderr
//	sleep DURATION   sleep
//	touch FILE       create FILE (tells a script the child got this far)
//	pidfile FILE     write the child's pid to FILE
//	ppidfile FILE    write the parent's (evcap's) pid to FILE
//	closeout         close stdout and carry on
//	stdin            copy stdin to stdout
//	trap             on SIGINT/SIGTERM/SIGHUP print "got SIGNAME" and exit 128+N
//	ignoreint        ignore SIGINT
//	fork ARGS...     start "evcap-testchild ARGS..." sharing stdout (rest of the line), wait
//	                 until it says ready (or ends), and exit without waiting for it
//	ready            tell the parent that forked this child that it may exit
//	die SIGNAME      kill itself with the signal (default action, so it dies by it)
//	exit CODE        exit with CODE
//	-- ARGS...       end; ARGS are ignored (argv redaction tests)
func testChild() {
	noArg := map[string]bool{"closeout": true, "stdin": true, "trap": true, "ignoreint": true, "fork": true, "ready": true}
	args := os.Args[1:]
	for len(args) > 0 {
		op, arg := args[0], ""
		args = args[1:]
		if op == "--" {
			return // the rest is only there to be seen in argv
		}
		if !noArg[op] {
			if len(args) == 0 {
				check(fmt.Errorf("%s needs an argument", op))
			}
			arg, args = args[0], args[1:]
		}
		switch op {
		case "print":
			os.Stdout.WriteString(arg + "\n")
		case "printn":
			os.Stdout.WriteString(arg)
		case "hex":
			b, err := hex.DecodeString(arg)
			check(err)
			os.Stdout.Write(b)
		case "cat":
			f, err := os.Open(arg)
			check(err)
			io.Copy(os.Stdout, f)
			f.Close()
		case "big":
			n, err := strconv.Atoi(arg)
			check(err)
			line := make([]byte, 0, n+1)
			line = append(line, `{"type":"big","data":"`...)
			line = append(line, bytes.Repeat([]byte("x"), n-len(line)-2)...)
			line = append(line, "\"}\n"...)
			os.Stdout.Write(line)
		case "stderr":
			os.Stderr.WriteString(arg + "\n")
		case "sleep":
			d, err := time.ParseDuration(arg)
			check(err)
			time.Sleep(d)
		case "touch":
			check(os.WriteFile(arg, nil, 0o644))
		case "pidfile":
			check(os.WriteFile(arg, []byte(strconv.Itoa(os.Getpid())), 0o644))
		case "ppidfile":
			check(os.WriteFile(arg, []byte(strconv.Itoa(os.Getppid())), 0o644))
		case "closeout":
			os.Stdout.Close()
		case "stdin":
			io.Copy(os.Stdout, os.Stdin)
		case "trap":
			c := make(chan os.Signal, 1)
			signal.Notify(c, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
			go func() {
				s := (<-c).(syscall.Signal)
				fmt.Printf("got %s\n", childSignalName(s))
				os.Exit(128 + int(s))
			}()
		case "ignoreint":
			signal.Ignore(syscall.SIGINT)
		case "fork":
			// The grandchild gets the write end of a pipe as fd 3 and
			// closes it at "ready": until then the parent stays, so what
			// the grandchild prints first never depends on how fast it
			// starts (under load and -race that is seconds).
			r, w, err := os.Pipe()
			check(err)
			cmd := exec.Command("evcap-testchild", args...)
			cmd.Stdout = os.Stdout
			cmd.ExtraFiles = []*os.File{w}
			check(cmd.Start())
			w.Close()
			io.Copy(io.Discard, r)
			return
		case "ready":
			os.NewFile(3, "ready").Close()
		case "die":
			// A shell with default signal actions kills itself, so the
			// child dies by the signal (Go would turn some into exit 2).
			sig := strings.TrimPrefix(arg, "SIG")
			check(syscall.Exec("/bin/sh", []string{"sh", "-c", "kill -" + sig + " $$"}, os.Environ()))
		case "exit":
			n, err := strconv.Atoi(arg)
			check(err)
			os.Exit(n)
		default:
			fmt.Fprintf(os.Stderr, "evcap-testchild: unknown op %q\n", op)
			os.Exit(99)
		}
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "evcap-testchild:", err)
		os.Exit(98)
	}
}

// waitfile FILE [REGEXP] waits (up to 20 s) until FILE exists and, when a
// regexp is given, holds a match: the script's way to know a background
// child got somewhere.
func waitfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfile FILE [REGEXP]")
	}
	var re *regexp.Regexp
	if len(args) == 2 {
		re = regexp.MustCompile(args[1])
	}
	path := ts.MkAbs(args[0])
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil && (re == nil || re.Match(data)) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("waitfile: %s did not appear (or match) within 20s", args[0])
}

// pidgone FILE checks that the process whose pid FILE holds is gone (or a
// zombie) within 5 s.
func pidgone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: pidgone FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	ts.Check(err)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return
		}
		if f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("pidgone: process %d is still running", pid)
}

// capend CAPTURE KEY=VALUE... checks fields of the capture's capture.end
// payload (gjson paths; VALUE compared with the field's raw JSON, or
// matched by it as a regexp when it starts with ~).
func capend(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: capend CAPTURE PATH=RAWJSON...")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var end []byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if gjson.GetBytes(line, "eventType").String() == envelope.EventCaptureEnd {
			end = []byte(gjson.GetBytes(line, "payload").Raw)
		}
	}
	if end == nil {
		ts.Fatalf("capend: %s has no capture.end record", args[0])
	}
	for _, kv := range args[1:] {
		k, want, _ := strings.Cut(kv, "=")
		got := gjson.GetBytes(end, k).Raw
		match := got == want
		if re, ok := strings.CutPrefix(want, "~"); ok {
			match = regexp.MustCompile(re).MatchString(got)
		}
		if match == neg {
			ts.Fatalf("capend: %s = %s, want %s%s (payload %s)", k, got, map[bool]string{true: "not ", false: ""}[neg], want, end)
		}
	}
}

// samenormalized CAPTURE EVENTS checks that EVENTS (the output of evcap
// normalize CAPTURE) equals the capture's normalized_out records, each
// payload with the record's cause put back.
func samenormalized(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: samenormalized CAPTURE EVENTS")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var recorded []string
	for _, line := range bytes.Split(data, []byte("\n")) {
		r := gjson.ParseBytes(line)
		if r.Get("stage").String() != string(envelope.StageNormalizedOut) {
			continue
		}
		p := r.Get("payload").Raw
		if c := r.Get("cause"); c.Exists() {
			p = strings.TrimSuffix(p, "}") + `,"cause":` + c.Raw + "}"
		}
		recorded = append(recorded, canonJSON(ts, p))
	}
	out, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	var again []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line != "" {
			again = append(again, canonJSON(ts, line))
		}
	}
	if len(recorded) == 0 {
		ts.Fatalf("samenormalized: %s has no normalized_out records", args[0])
	}
	if strings.Join(recorded, "\n") != strings.Join(again, "\n") {
		ts.Fatalf("samenormalized: %d recorded events differ from %d normalized again:\nrecorded:\n%s\nagain:\n%s",
			len(recorded), len(again), strings.Join(recorded, "\n"), strings.Join(again, "\n"))
	}
}

func canonJSON(ts *testscript.TestScript, s string) string {
	if !gjson.Valid(s) {
		ts.Fatalf("not JSON: %s", s)
	}
	return gjson.Get(s, "@pretty:{\"sortKeys\":true}|@ugly").Raw
}
