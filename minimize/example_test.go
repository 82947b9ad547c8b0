package minimize_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/minimize"
	"github.com/evcap/evcap/replay"
)

// A program that dies on Codex's reasoning items, minimized against: of the
// eleven native lines of the promoted Codex run, only that item is needed.
func ExampleExecFails() {
	fx, err := fixtures.Load(os.DirFS("../fixtures/testdata/codex/tools"), ".")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	run := minimize.ExecRunner(replay.ExecOptions{Command: `awk '/"type":"reasoning"/ {exit 3} {print}'`}, time.Minute)
	fails, failure, err := minimize.ExecFails(ctx, fx, run, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := minimize.Fixture(ctx, fx, fails)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %d native lines -> %d\n", failure, res.Before.NativeLines, res.After.NativeLines)
	// Output: exit status 3: 11 native lines -> 1
}

// DDMin on its own: the smallest set of units a test still holds for.
func ExampleDDMin() {
	units := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	kept, _, err := minimize.DDMin(context.Background(), units, func(_ context.Context, keep []int64) (bool, error) {
		has := map[int64]bool{}
		for _, u := range keep {
			has[u] = true
		}
		return has[3] && has[8], nil
	})
	fmt.Println(kept, err)
	// Output: [3 8] <nil>
}
