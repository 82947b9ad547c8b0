package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/evcap/evcap/scan"
	"github.com/evcap/evcap/source"
	"github.com/spf13/cobra"
)

func newScanCmd(s streams) *cobra.Command {
	var (
		paths  machinePaths
		asJSON bool
		shown  int
	)
	cmd := &cobra.Command{
		Use:   "scan PATH...  (- reads standard input)",
		Short: "Fail when captures, fixtures or bundles still hold secrets, machine paths or volatile ids",
		Long: `scan is the gate for CI and pre-commit hooks, and what bundle and promote run
before they write anything. It is not the redactor: it has its own rules and
reads what a person reading the file would read, not the raw bytes: JSON
strings and keys decoded, JSON held inside strings parsed, literal \u escapes,
base64 and percent-encoded candidates decoded, streamed deltas put back
together per block however far apart, a private key's body lines after its
BEGIN line.

It reads captures (*.jsonl), fixture.json files and bundles (.zip, every
entry); a capture or a fixture.json also from a FIFO or from standard input
(-), read once. In a directory it reads every *.jsonl and every fixture directory
whole (fixture.json and every file under it, goldens included); other files
are not read. Findings are grouped by file and rule, one line per finding:
LINE:SEQUENCE and the JSON pointer of the string it is in (SEQUENCE is 0 for
lines without one), and how it had to be decoded to be seen; past --shown
findings of one file and rule, a group says how many more there are (its
count is always exact). The secret itself is never printed. The allowlist,
custom rules and disabled rules of .evcap.toml are honoured.

Exit status: 0 when everything is clean, 1 when anything was found, 2 when an
input is not a capture, fixture or bundle (or cannot be read), since scan
cannot call clean what it could not check.`,
		Example: `  evcap scan testdata/fixtures
  evcap scan run.jsonl run.bundle.zip
  evcap sanitize run.jsonl | evcap scan -
  evcap scan --json fixtures/ | jq '.groups[] | {file, rule, count}'
  evcap scan --home /home/ci --tmp /tmp fixtures/
  evcap scan --shown 0 run.jsonl   # every finding, not the first 100 per rule`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, project, _, tmp, cfg, err := paths.resolve()
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			opts := scan.Options{Home: home, Project: project, Temp: tmp, Config: cfg, LongLine: budgetOf(s.ctx).sawLine, Stdin: s.in}
			if f, ok := s.in.(*os.File); ok && f != nil {
				r, release := source.Interruptible(cmd.Context(), f)
				defer release()
				opts.Stdin = r
			}
			sc, err := scan.New(opts)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			tally := scan.NewTally(shown)
			files, err := sc.TallyContext(cmd.Context(), args, tally)
			if err != nil {
				if errors.Is(err, scan.ErrNotScannable) {
					err = fmt.Errorf("%w (give captures, fixture.json files, fixture directories or bundles)", err)
				}
				return &exitError{code: 2, err: err}
			}
			if asJSON {
				b, err := json.MarshalIndent(tally.Report(files), "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintf(s.out, "%s\n", b)
			} else if err := scan.WriteText(s.out, tally.Groups()); err != nil {
				return err
			}
			if n := tally.Findings(); n > 0 {
				return &exitError{code: 1, err: fmt.Errorf("scan: %d finding(s) in %d file(s) read; run evcap sanitize on them", n, files)}
			}
			return nil
		},
	}
	paths.flags(cmd)
	cmd.Flags().IntVar(&shown, "shown", scan.DefaultShown, "findings listed per file and rule, the first in line order (0: all); the rest are counted")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON report (clean, files, findings, groups by file and rule with each finding's line, sequence and pointer)")
	return cmd
}
