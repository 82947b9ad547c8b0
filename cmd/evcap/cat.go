package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/termtext"
	"github.com/spf13/cobra"
	"github.com/tidwall/gjson"
)

func newCatCmd(s streams) *cobra.Command {
	var stagesFlag []string
	var asJSON bool
	var width int
	cmd := &cobra.Command{
		Use:   "cat FILE",
		Short: "List a capture: one line per record with sequence, stage, event type and a summary",
		Long: `cat prints a capture in a form people can read: the sequence number, the
stage, the event type, the causes and a one-line summary of the payload.
Control characters in payloads are shown escaped, never sent to the terminal.
With --json it prints the selected records unchanged, one per line.`,
		Example: `  evcap cat capture.jsonl
  evcap cat --stage normalized_out capture.jsonl
  evcap cat --stage native_in,meta --json capture.jsonl | jq .payload`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			want, err := parseStages(stagesFlag)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			r, done, err := openInput(s, args[0])
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			defer done()
			return catRecords(s, r, args[0], catOptions{want: want, asJSON: asJSON, width: width})
		},
	}
	cmd.Flags().StringSliceVar(&stagesFlag, "stage", nil, "only these stages (comma-separated or repeated): native_in, native_out, normalized_out, legacy_out, handler_in, render_in, meta")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the selected records as JSONL, unchanged")
	cmd.Flags().IntVar(&width, "width", 160, "cut lines to this many characters (0: no limit)")
	return cmd
}

// parseStages reads --stage values (comma-separated or repeated) into a
// set; an empty set means every stage.
func parseStages(vals []string) (map[envelope.Stage]bool, error) {
	want := map[envelope.Stage]bool{}
	for _, st := range vals {
		for _, one := range strings.Split(st, ",") {
			stage := envelope.Stage(strings.TrimSpace(one))
			if !stage.Valid() {
				return nil, fmt.Errorf("--stage %q: not one of %v", one, envelope.Stages())
			}
			want[stage] = true
		}
	}
	return want, nil
}

// catOptions are cat's output settings.
type catOptions struct {
	want   map[envelope.Stage]bool // stages to print; empty: all
	asJSON bool
	width  int
}

// catRecords prints the records of r, one line each (or unchanged with
// asJSON). A line that is not a record is reported on stderr and skipped;
// any such line makes the exit status 1.
func catRecords(s streams, r io.Reader, name string, o catOptions) error {
	rd := envelope.NewReader(r, name, envelope.ReaderOptions{})
	var buf []byte
	bad := 0
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var le *envelope.LineError
			if errors.As(err, &le) {
				fmt.Fprintln(s.err, "evcap:", err)
				bad++
				continue
			}
			return err
		}
		if len(o.want) > 0 && !o.want[rec.Stage] {
			continue
		}
		if o.asJSON {
			buf = envelope.AppendRecord(buf[:0], rec)
			if _, err := s.out.Write(buf); err != nil {
				return err
			}
			continue
		}
		causes := causeList(rec.Cause)
		line := fmt.Sprintf("%6d  %-14s  %-28s %-8s %s", rec.Sequence, rec.Stage, rec.EventType, causes, Summarize(rec))
		if o.width > 0 {
			line = cutRunes(line, o.width)
		}
		fmt.Fprintln(s.out, strings.TrimRight(line, " "))
	}
	if bad > 0 {
		return &exitError{code: 1}
	}
	return nil
}

// causeList shows a record's causes compactly: ←4, ←4,5, or ←8…48 (14).
func causeList(c []int64) string {
	switch {
	case len(c) == 0:
		return ""
	case len(c) <= 3:
		return "←" + strings.Trim(strings.ReplaceAll(fmt.Sprint(c), " ", ","), "[]")
	default:
		return fmt.Sprintf("←%d…%d(%d)", c[0], c[len(c)-1], len(c))
	}
}

// Summarize returns a one-line description of a record's payload for
// listings: the text of a normalized event, the tool and its summary, the
// content of a provider line, with control characters escaped.
func Summarize(rec *envelope.Record) string {
	p := gjson.ParseBytes(rec.Payload)
	var out string
	switch rec.Stage {
	case envelope.StageNormalizedOut:
		parts := []string{p.Get("kind").String() + "/" + p.Get("phase").String()}
		for _, path := range []string{"tool.name", "tool.summary", "text", "error.message", "retry.error", "status", "model", "nativeType"} {
			if v := p.Get(path); v.Exists() && v.String() != "" {
				parts = append(parts, quoteIfText(path, v.String()))
			}
		}
		if u := p.Get("usage"); u.Exists() {
			parts = append(parts, fmt.Sprintf("in=%d out=%d", u.Get("inputTokens").Int(), u.Get("outputTokens").Int()))
		}
		if r := p.Get("result"); r.Exists() {
			parts = append(parts, fmt.Sprintf("isError=%v turns=%d", r.Get("isError").Bool(), r.Get("numTurns").Int()))
		}
		out = strings.Join(parts, " ")
	case envelope.StageMeta:
		out = compact(rec.Payload)
	default:
		if p.Type == gjson.String {
			out = fmt.Sprintf("%q", p.String())
		} else {
			out = compact(rec.Payload)
		}
	}
	if len(rec.Redactions) > 0 {
		out += fmt.Sprintf(" [%d redaction(s)]", len(rec.Redactions))
	}
	return termtext.Escape(out)
}

func quoteIfText(path, s string) string {
	if path == "text" || path == "error.message" || path == "retry.error" || path == "tool.summary" {
		return fmt.Sprintf("%q", cutRunes(s, 200))
	}
	return s
}

func compact(raw []byte) string {
	return cutRunes(string(gjson.Parse(string(raw)).Get("@ugly").Raw), 400)
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
