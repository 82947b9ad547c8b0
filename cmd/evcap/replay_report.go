package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/evcap/evcap/replayrun"
)

// printReplay writes the text report of evcap replay: a line per check
// (the mismatch reports in full, errors on stderr) and, for more than one
// check, a count per status.
func printReplay(s streams, results []replayrun.Result) {
	for _, r := range results {
		switch r.Status {
		case replayrun.StatusOK:
			fmt.Fprintf(s.out, "replay %s (%s): ok\n", r.Path, r.Check)
		case replayrun.StatusMismatch:
			if r.Error != "" {
				fmt.Fprintf(s.out, "replay %s (%s): %s\n", r.Path, r.Check, r.Error)
			}
			for _, m := range r.Mismatches {
				fmt.Fprint(s.out, m.Error())
			}
		case replayrun.StatusUpdated:
			fmt.Fprintf(s.out, "wrote %s:\n", r.Golden)
			io.WriteString(s.out, indent(r.Changes))
		case replayrun.StatusUnchanged:
			fmt.Fprintf(s.out, "unchanged %s (nothing written)\n", r.Golden)
		case replayrun.StatusError:
			fmt.Fprintf(s.err, "evcap replay: %s (%s): %s\n", r.Path, r.Check, r.Error)
		}
	}
	if len(results) > 1 {
		n := map[replayrun.Status]int{}
		for _, r := range results {
			n[r.Status]++
		}
		var parts []string
		for _, st := range []replayrun.Status{replayrun.StatusOK, replayrun.StatusMismatch, replayrun.StatusError, replayrun.StatusUpdated, replayrun.StatusUnchanged} {
			if n[st] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n[st], st))
			}
		}
		fmt.Fprintf(s.out, "replay: %d checks: %s\n", len(results), strings.Join(parts, ", "))
	}
}

// indent indents every line of s by two spaces.
func indent(s string) string {
	if s == "" {
		return ""
	}
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}
