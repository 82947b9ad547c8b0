package source_test

import (
	"fmt"
	"io"
	"os"

	"github.com/evcap/evcap/envelope"
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
