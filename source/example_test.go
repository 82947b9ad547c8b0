package source_test

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/source"
)

// A command that reads captures reads a fixture directory the same way:
// Open hands out the fixture's events as capture records.
func ExampleOpen() {
	in, err := source.Open("../fixtures/testdata/claude/tools", os.Stdin)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer in.Close()
	rd := envelope.NewReader(in.Reader(), in.Name, envelope.ReaderOptions{})
	counts := map[envelope.Stage]int{}
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		counts[rec.Stage]++
	}
	fmt.Println(in.Kind, in.Fixture.Provider, counts[envelope.StageNativeIn] > 0, counts[envelope.StageNormalizedOut] > 0)
	// Output: fixture claude true true
}

// An integration's own UI accumulator is re-driven from a capture: Events
// hands out the capture's events with the moment each happened, here
// those of a real claude -p run with a subagent, sanitized, whose times
// are offsets from its first record.
func ExampleInput_Events() {
	in, err := source.Open("../export/testdata/claude-subagent.capture.jsonl", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer in.Close()
	events, err := in.Events(source.EventsOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var first time.Time
	for {
		at, e, err := events.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		if first.IsZero() {
			first = at
		}
		if e.Kind == event.KindAgent || e.Kind == event.KindResult {
			fmt.Printf("+%v %s %s\n", at.Sub(first), e.Kind, e.Phase)
		}
	}
	fmt.Println("from", events.From)
	// Output:
	// +121ms agent started
	// +215ms agent updated
	// +335ms agent completed
	// +376ms agent completed
	// +496ms result completed
	// from normalized_out
}
