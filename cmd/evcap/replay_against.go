package main

import (
	"fmt"
	"os"

	"github.com/evcap/evcap/history"
	"github.com/spf13/cobra"
)

// withAgainst adds --against LIVE_CAPTURE to the replay command: given it,
// replay compares the restored session of each HISTORY capture argument
// (evcap import) with the live capture of the same run, after both are
// folded into chat groups, and fails on the first difference it names.
// Without it the replay command runs as it is.
func withAgainst(replay *cobra.Command, s streams) *cobra.Command {
	var live string
	var thinking bool
	inner := replay.RunE
	replay.Flags().StringVar(&live, "against", "", "compare each HISTORY capture (evcap import) with this live capture of the same run, "+
		"as a chat UI groups them: texts, tool calls with status and result, final answer")
	replay.Flags().BoolVar(&thinking, "against-thinking", false, "with --against, compare thinking blocks too")
	replay.Example += "\n  evcap replay --against live.jsonl restored.jsonl"
	replay.RunE = func(cmd *cobra.Command, args []string) error {
		if live == "" {
			return inner(cmd, args)
		}
		failed := false
		for _, h := range args {
			d, err := compareFiles(live, h, history.CompareOptions{Thinking: thinking})
			if err != nil {
				return err
			}
			if d != nil {
				failed = true
				fmt.Fprintf(s.out, "FAIL %s: %v\n", h, d)
				continue
			}
			fmt.Fprintf(s.out, "ok   %s: restored session matches %s\n", h, live)
		}
		if failed {
			return &exitError{code: 1}
		}
		return nil
	}
	return replay
}

func compareFiles(live, restored string, o history.CompareOptions) (*history.Difference, error) {
	lf, err := os.Open(live)
	if err != nil {
		return nil, fmt.Errorf("replay --against: %w", err)
	}
	defer lf.Close()
	rf, err := os.Open(restored)
	if err != nil {
		return nil, fmt.Errorf("replay --against: %w", err)
	}
	defer rf.Close()
	return history.CompareCaptures(lf, live, rf, restored, o)
}
