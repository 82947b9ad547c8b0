package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run the evcap binary in-process: scripts call
// "evcap ..." and get this package's main.
func TestMain(m *testing.M) {
	quickRaceExit()
	testscript.Main(m, map[string]func(){
		"evcap": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
		"evcap-testchild": testChild,
	})
}

// quickRaceExit makes the evcap processes the tests start exit at once
// under the race detector. A program built with -race sleeps one second
// before it exits (ThreadSanitizer's atexit_sleep_ms, there so that other
// threads can finish a race report); the scripts and fault rows start evcap
// and its children hundreds of times, so that sleep alone was minutes of the
// package's time. A race is still reported and still fails the run (exit
// status 66). A GORACE that already sets atexit_sleep_ms is left as it is;
// testscript passes GORACE on to the scripts.
func quickRaceExit() {
	g := os.Getenv("GORACE")
	if strings.Contains(g, "atexit_sleep_ms") {
		return
	}
	os.Setenv("GORACE", strings.TrimSpace(g+" atexit_sleep_ms=0"))
}

// TestScripts runs every testdata/script/*.txtar: one file per behaviour,
// named after the subcommand.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"chop":           chop,
			"waitfile":       waitfile,
			"pidgone":        pidgone,
			"capend":         capend,
			"samenormalized": samenormalized,
		},
	})
}

// chop FILE N removes the last N bytes of FILE, to make torn last lines
// (txtar files always end in a newline).
func chop(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: chop FILE N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	if n > len(data) {
		ts.Fatalf("chop: %s has only %d bytes", args[0], len(data))
	}
	ts.Check(os.WriteFile(path, data[:len(data)-n], 0o644))
}
