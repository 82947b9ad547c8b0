package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evcap/evcap/internal/corpustest"
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

// TestScripts runs every testdata/script/*.txtar but the heavy ones: one
// file per behaviour, named after the subcommand.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams(t, false))
}

// heavyScripts are the scripts that cost the most CPU under the race
// detector, 10-30 s each (measured one by one): the demo and the bundle and
// promote scripts, which sanitize and scan whole captures several times in
// one goroutine. TestScriptsHeavy runs them, so go test -race ./... and
// -short leave them to .ci/after-heavy.sh. The record scripts, whose
// pipeline is concurrent, stay under the race detector.
var heavyScripts = map[string]bool{
	"demo":             true,
	"bundle_demo":      true,
	"bundle_leak":      true,
	"bundle_tmp":       true,
	"promote_exec":     true,
	"promote_minimize": true,
	"promote_replay":   true,
}

// TestScriptsHeavy runs the scripts of heavyScripts, under the same names
// as TestScripts would (TestScriptsHeavy/bundle_demo).
func TestScriptsHeavy(t *testing.T) {
	corpustest.Heavy(t)
	testscript.Run(t, scriptParams(t, true))
}

// scriptParams lists testdata/script/*.txtar, the heavy ones or the others.
func scriptParams(t *testing.T, heavy bool) testscript.Params {
	t.Helper()
	all, err := filepath.Glob("testdata/script/*.txtar")
	if err != nil || len(all) == 0 {
		t.Fatalf("no scripts in testdata/script: %v", err)
	}
	var files []string
	found := 0
	for _, f := range all {
		h := heavyScripts[strings.TrimSuffix(filepath.Base(f), ".txtar")]
		if h {
			found++
		}
		if h == heavy {
			files = append(files, f)
		}
	}
	if found != len(heavyScripts) {
		t.Fatalf("heavyScripts names %d scripts, testdata/script has %d of them", len(heavyScripts), found)
	}
	return testscript.Params{
		Files: files,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"chop":           chop,
			"waitfile":       waitfile,
			"pidgone":        pidgone,
			"capend":         capend,
			"samenormalized": samenormalized,
		},
	}
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
