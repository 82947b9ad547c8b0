package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/render/legacy"
	"github.com/evcap/evcap/source"
	"github.com/spf13/cobra"
)

func newNormalizeCmd(s streams) *cobra.Command {
	var provider string
	var legacyOut bool
	var nopts normOptions
	cmd := &cobra.Command{
		Use:   "normalize [--provider auto|claude|codex|opencode|gemini] [--legacy] FILE|-",
		Short: "Turn an agent CLI's raw output, or a capture's native lines, into normalized events",
		Long: `normalize reads what an agent CLI printed and writes the normalized events
(one JSON object per line) that evcap's renderers and replays consume, or, with
--legacy, the compatibility marker lines ([CONTENT_DELTA] …) of IDE bridges.

FILE is either the CLI's raw output (Claude Code or Gemini CLI stream-json,
codex exec --json, opencode run --format json, or the opencode /event bus as
raw SSE text or one JSON payload per line) or an evcap capture. A capture is
recognised by its first line (a record with schemaVersion and stage); only its
native_in records are read, stderr lines excepted, and each event's cause is
the capture sequence number of the records it came from. In raw input the
cause is the 1-based line number.

With --provider auto (the default) the provider is the capture's, or is told
from the first lines of the stream. A named provider that contradicts what
the input plainly is, is an error rather than a page of unknown events.

The input is streamed: memory stays proportional to the longest line, and
from a pipe each line's events are written as soon as it has been read. A last
line without a newline (a torn write) is reported on stderr and normalized
anyway; it does not change the exit status. Invalid capture records are
reported, skipped, and make the exit status 1.

--cumulative-deltas is for streams from Claude-compatible gateways and
third-party models that put the whole text so far into every text or
thinking delta: each delta event then carries only the new text. Do not use
it on the agent CLIs' own output, whose deltas are pieces.`,
		Example: `  evcap normalize claude.stdout.jsonl
  codex exec --json 'Say hello.' | evcap normalize -
  evcap normalize --provider opencode serve.sse.txt
  evcap normalize --legacy capture.jsonl
  evcap normalize --cumulative-deltas gateway.stdout.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runNormalize(cmd.Context(), s, args[0], provider, legacyOut, nopts)
		},
	}
	cmd.Flags().StringVar(&provider, "provider", "auto", "auto, or one of: "+strings.Join(providerNames(), ", "))
	cmd.Flags().BoolVar(&legacyOut, "legacy", false, "print legacy marker lines instead of normalized events")
	cmd.Flags().BoolVar(&nopts.cumulativeDeltas, "cumulative-deltas", false, cumulativeDeltasHelp)
	return cmd
}

func runNormalize(ctx context.Context, s streams, name, providerFlag string, legacyOut bool, nopts normOptions) error {
	if providerFlag != "auto" {
		if _, err := newNormalizer(providerFlag); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("--provider: %w", err)}
		}
	}
	in, err := openNative(s, name)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer in.close()
	provider, err := in.chooseProvider(providerFlag)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	n, err := newNormalizerWith(provider, nopts)
	if err != nil {
		return &exitError{code: 2, err: err}
	}

	out := bufio.NewWriterSize(s.out, 64<<10)
	// From a pipe, the events of the lines that came so far are written
	// out before evcap waits for more.
	in.Drained = out.Flush
	var deriver *legacy.Deriver
	if legacyOut {
		deriver = legacy.New()
	}
	writeMarkers := func(ms []legacy.Marker) {
		for _, m := range ms {
			out.WriteString(m.Line)
			out.WriteByte('\n')
		}
	}
	emit := func(evs []event.Event) error {
		for i := range evs {
			if deriver != nil {
				writeMarkers(deriver.Event(evs[i]))
				continue
			}
			// Encoded straight into the writer's free buffer, unless the
			// event does not fit: no second buffer to copy it from.
			b, err := event.AppendJSON(out.AvailableBuffer(), &evs[i])
			if err != nil {
				return fmt.Errorf("encode event from %s: %w", name, err)
			}
			out.Write(append(b, '\n'))
		}
		return nil
	}

	// Reading, normalizing and encoding overlap (see source.Native.Normalize).
	if err := in.Normalize(ctx, n, emit); err != nil {
		return err
	}
	if deriver != nil {
		writeMarkers(deriver.End())
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if in.BadRecords > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%s: %d invalid record(s) skipped", name, in.BadRecords)}
	}
	return nil
}

// nativeInput is an input opened as source.Native (a capture's native
// lines or raw output, the first lines read ahead to tell the provider)
// with what closes it.
type nativeInput struct {
	*source.Native
	done func()
}

// openNative opens name (or standard input for "-") with openInput and
// reads it as source.Native.
func openNative(s streams, name string) (*nativeInput, error) {
	r, src, done, err := openSource(s, name)
	if err != nil {
		return nil, err
	}
	n, err := source.NewNative(r, name, s.err)
	if err != nil {
		done()
		return nil, err
	}
	n.Live = src.Live
	return &nativeInput{n, done}, nil
}

func (in *nativeInput) close()                       { in.done() }
func (in *nativeInput) next() (int64, []byte, error) { return in.Next() }
func (in *nativeInput) chooseProvider(flag string) (string, error) {
	return in.Choose(flag, providerNames())
}
