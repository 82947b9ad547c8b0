package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/normalize/detect"
	"github.com/evcap/evcap/render/legacy"
	"github.com/evcap/evcap/source"
	"github.com/spf13/cobra"
	"github.com/tidwall/gjson"
)

// detectLines is how many native lines are held back to tell the provider
// before normalizing starts. Every corpus stream is told by its first line
// or two; the rest is slack for leading noise.
const detectLines = 16

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

The input is streamed: memory stays proportional to the longest line. A last
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
	var buf []byte
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
		for _, e := range evs {
			if deriver != nil {
				writeMarkers(deriver.Event(e))
				continue
			}
			b, err := event.AppendJSON(buf[:0], &e)
			if err != nil {
				return fmt.Errorf("encode event from %s: %w", name, err)
			}
			buf = append(b, '\n')
			out.Write(buf)
		}
		return nil
	}

	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		ref, line, err := in.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		if err := emit(n.Line(ref, line)); err != nil {
			return err
		}
	}
	if err := emit(n.End()); err != nil {
		return err
	}
	if deriver != nil {
		writeMarkers(deriver.End())
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if in.badRecords > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%s: %d invalid record(s) skipped", name, in.badRecords)}
	}
	return nil
}

// nativeInput yields the native lines of one input: every line of raw agent
// output, or the native_in records (stderr excepted) of a capture. The first
// lines are read ahead and kept, so the provider can be told before the
// first line is normalized; next hands them out again in order.
type nativeInput struct {
	name      string
	isCapture bool
	// capProvider and cliVersion come from the capture's records (its
	// provider field, the cliVersion of capture.start); empty for raw input.
	capProvider string
	cliVersion  string
	// detected is the verdict of normalize/detect on the read-ahead lines.
	detected   detect.Match
	detectedOK bool
	// badRecords counts capture lines that were not valid records.
	badRecords int

	raw     *lines.Reader
	env     *envelope.Reader
	ahead   []aheadLine
	warn    io.Writer
	closeFn func()
}

type aheadLine struct {
	ref  int64
	line []byte
}

// openNative opens name (or standard input for "-"), tells a capture from raw
// output by its first line, and reads ahead until the provider can be told
// or detectLines native lines are held.
func openNative(s streams, name string) (*nativeInput, error) {
	r, done, err := openInput(s, name)
	if err != nil {
		return nil, err
	}
	in := &nativeInput{name: name, warn: s.err, closeFn: done}
	br := bufio.NewReaderSize(r, 64<<10)
	// The first line is read whole (ReadBytes has no length limit) and put
	// back in front of the rest, so that whichever reader takes over sees
	// the input from its first byte.
	first, err := br.ReadBytes('\n')
	if err != nil && err != io.EOF {
		done()
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	rest := io.MultiReader(bytes.NewReader(first), br)
	if source.IsCaptureLine(bytes.TrimRight(first, "\r\n")) {
		in.isCapture = true
		in.env = envelope.NewReader(rest, name, envelope.ReaderOptions{})
	} else {
		in.raw = lines.NewReader(rest)
	}

	for len(in.ahead) < detectLines {
		ref, line, err := in.read()
		if err == io.EOF {
			break
		}
		if err != nil {
			done()
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		in.ahead = append(in.ahead, aheadLine{ref, bytes.Clone(line)})
		if m, ok := detect.Line(line); ok {
			in.detected, in.detectedOK = m, true
			break
		}
	}
	return in, nil
}

func (in *nativeInput) close() { in.closeFn() }

// next returns the next native line and its ref (line number, or capture
// sequence number), or io.EOF. The line is valid until the next call.
func (in *nativeInput) next() (int64, []byte, error) {
	if len(in.ahead) > 0 {
		a := in.ahead[0]
		in.ahead = in.ahead[1:]
		return a.ref, a.line, nil
	}
	return in.read()
}

func (in *nativeInput) read() (int64, []byte, error) {
	if in.raw != nil {
		line, err := in.raw.Next()
		if errors.Is(err, lines.ErrTorn) {
			fmt.Fprintf(in.warn, "evcap: %s:%d: %v; normalized as it is\n", in.name, in.raw.Line(), err)
			err = nil
		}
		return in.raw.Line(), line, err
	}
	for {
		rec, err := in.env.Next()
		if err == io.EOF {
			return 0, nil, io.EOF
		}
		var le *envelope.LineError
		if errors.As(err, &le) {
			fmt.Fprintln(in.warn, "evcap:", err)
			if !errors.Is(err, envelope.ErrTornLine) {
				in.badRecords++
			}
			continue
		}
		if err != nil {
			return 0, nil, err
		}
		if in.capProvider == "" {
			in.capProvider = rec.Provider
		}
		switch {
		case rec.Stage == envelope.StageMeta && rec.EventType == envelope.EventCaptureStart:
			if v := gjson.GetBytes(rec.Payload, "cliVersion"); v.Type == gjson.String {
				in.cliVersion = v.String()
			}
			continue
		case rec.Stage == envelope.StageNativeIn && rec.EventType == envelope.EventGap:
			fmt.Fprintf(in.warn, "evcap: %s: sequence %d: the capture dropped bytes here (gap): %s\n",
				in.name, rec.Sequence, compact(rec.Payload))
			continue
		case !envelope.Normalized(rec.Stage, rec.EventType):
			continue
		}
		return rec.Sequence, envelope.DecodeNativeLine(rec.EventType, rec.Payload), nil
	}
}

// chooseProvider settles which normalizer reads the input (see
// source.Choose). flag is "auto" or a provider name already checked
// against the table.
func (in *nativeInput) chooseProvider(flag string) (string, error) {
	return source.Choose(source.Evidence{Name: in.name, Recorded: in.capProvider,
		Detected: in.detected, DetectedOK: in.detectedOK, NativeLines: len(in.ahead)}, flag, providerNames())
}
