// Command noflags imports replay and replaytest and prints every flag
// registered on flag.CommandLine: none must be.
package main

import (
	"flag"
	"fmt"

	"github.com/evcap/evcap/replay"
	"github.com/evcap/evcap/replay/replaytest"
)

func main() {
	_ = replay.DefaultChunkings
	_ = replaytest.Updating
	n := 0
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		fmt.Println("flag:", f.Name)
		n++
	})
	fmt.Printf("%d flags\n", n)
}
