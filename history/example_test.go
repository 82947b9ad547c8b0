package history_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/history"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/render/groups"
)

// Import a stored Claude Code session and compare it with what the same
// run printed live.
func Example() {
	ctx := context.Background()
	op, err := history.Open(ctx, history.Target{Path: "testdata/corpus/claude/tools/history.jsonl"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer op.Entries.Close()
	var restored bytes.Buffer
	st, err := history.Import(ctx, op.Entries, &restored, history.Options{Provider: op.Provider,
		CaptureID: "01JDX0000000000000000000AA"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %d stored entries, %d native_in records, %d unknown events\n", op.Provider, st.Entries, st.Native, st.Unknown)

	restoredRun, err := history.Fold(&restored, "restored")
	if err != nil {
		fmt.Println(err)
		return
	}
	live, err := os.ReadFile("testdata/corpus/claude/tools/live.stdout.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	evs, _ := event.ReadAll(strings.NewReader(string(live)), claude.New())
	acc := groups.New()
	for _, e := range evs {
		acc.Add(e)
	}
	if d := history.Compare(acc.Run(), restoredRun, history.CompareOptions{}); d != nil {
		fmt.Println(d)
		return
	}
	fmt.Println("the restored session shows what the live run showed")
	// Output:
	// claude: 14 stored entries, 14 native_in records, 0 unknown events
	// the restored session shows what the live run showed
}
