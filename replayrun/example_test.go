package replayrun_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/evcap/evcap/replayrun"
)

// Replay a fixture against every golden it keeps, as
// evcap replay fixtures/testdata/claude/tools does, and exit as it would.
func Example() {
	rep, err := replayrun.Run(context.Background(), []string{"../fixtures/testdata/claude/tools"}, replayrun.Options{})
	if err != nil {
		log.Fatal(err) // the options are not valid
	}
	for _, r := range rep.Results {
		fmt.Printf("%s (%s): %s\n", r.Path, r.Check, r.Status)
	}
	fmt.Println("exit status", rep.Exit)
	// Output:
	// ../fixtures/testdata/claude/tools (native): ok
	// ../fixtures/testdata/claude/tools (normalized → chat): ok
	// ../fixtures/testdata/claude/tools (normalized → groups): ok
	// ../fixtures/testdata/claude/tools (normalized → term): ok
	// ../fixtures/testdata/claude/tools (legacy): ok
	// exit status 0
}

// Replay a capture read from standard input ("-"), as
// cat capture.jsonl | evcap replay - --json does: the Report's JSON form
// is what evcap prints.
func ExampleRun_stdin() {
	capture, err := os.Open("../cmd/evcap/sample/claude-tools.jsonl")
	if err != nil {
		log.Fatal(err)
	}
	defer capture.Close()
	rep, err := replayrun.Run(context.Background(), []string{"-"}, replayrun.Options{Stdin: capture})
	if err != nil {
		log.Fatal(err)
	}
	doc, _ := json.Marshal(rep)
	fmt.Println(string(doc))
	// Output:
	// {"results":[{"path":"-","check":"native","status":"ok"}],"exit":0}
}
