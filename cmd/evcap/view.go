package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/evcap/evcap/view"
	"github.com/spf13/cobra"
)

func newViewCmd(s streams) *cobra.Command {
	var out string
	var maxPayload int
	cmd := &cobra.Command{
		Use:   "view CAPTURE [-o report.html]",
		Short: "Write a capture as one self-contained HTML timeline",
		Long: `view writes a single HTML file that shows a capture as a timeline: one lane
per stage (native_in, normalized_out, legacy_out), one row per record with its
sequence and time offset, cause links from normalized events to their native
lines, tool calls as cards with status and duration, text blocks reassembled
(chunk boundaries on demand), errors and retries highlighted, filters by stage
and kind, search, and keys (j/k or arrows, Enter for the cause, n/N for the
next error, / to search).

The file needs no network and no other file: scripts and styles are inline and
the capture is embedded. It holds the capture as it is: view a sanitized
capture (evcap sanitize) before sharing the page. Payloads over --max-payload
bytes are shortened to an excerpt.`,
		Example: `  evcap view run.jsonl                 # writes run.html
  evcap view run.jsonl -o /tmp/report.html
  evcap sanitize run.jsonl -o clean.jsonl && evcap view clean.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			in, done, err := openInput(s, name)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			defer done()
			if out == "" {
				if name == "-" {
					out = "-"
				} else {
					out = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)) + ".html"
				}
			}
			opts := view.Options{Title: "evcap: " + filepath.Base(name), MaxPayload: maxPayload}
			var st view.Stats
			write := func(w io.Writer) error {
				var err error
				st, err = view.WriteContext(cmd.Context(), w, in, name, opts)
				return err
			}
			if out == "-" {
				if err := write(s.out); err != nil {
					return &exitError{code: 2, err: err}
				}
				return nil
			}
			if err := writeAtomically(out, write); err != nil {
				return &exitError{code: 2, err: err}
			}
			msg := fmt.Sprintf("evcap: wrote %s (%d records", out, st.Records)
			if st.Truncated > 0 {
				msg += fmt.Sprintf(", %d large payload(s) shortened", st.Truncated)
			}
			if st.TornLine {
				msg += ", torn last line left out"
			}
			fmt.Fprintln(s.err, msg+")")
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "HTML file to write, - for stdout (default: CAPTURE's name with .html, in the working directory)")
	cmd.Flags().IntVar(&maxPayload, "max-payload", view.DefaultMaxPayload, "payloads larger than this many bytes are shortened to an excerpt")
	return cmd
}
