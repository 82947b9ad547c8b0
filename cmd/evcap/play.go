package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
	"github.com/spf13/cobra"
	"github.com/tidwall/gjson"
)

// sleeper waits for d or until ctx ends; tests pass one that returns at once.
type sleeper func(ctx context.Context, d time.Duration) error

func realSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func newPlayCmd(s streams) *cobra.Command { return newPlayCmdWith(s, realSleep) }

type playOptions struct {
	stage envelope.Stage
	// factor multiplies the recorded pauses (0: none).
	factor float64
	// idleLimit caps every pause (0: no cap).
	idleLimit time.Duration
	sleep     sleeper
}

func newPlayCmdWith(s streams, sleep sleeper) *cobra.Command {
	var speed, stage string
	var idle time.Duration
	cmd := &cobra.Command{
		Use:   "play [flags] CAPTURE [CLI ARGS...]",
		Short: "Stand in for the agent CLI: write what it wrote, with its timing, answering its input",
		Long: `play prints the lines the agent CLI printed, as it printed them, so a capture
can stand in for the CLI and reproduce a live rendering bug in the real
application. The pauses between lines come from the record timestamps
(--speed divides them, --idle-limit caps them). stderr records go to stderr,
and play exits with the exit code the CLI exited with.

When the capture holds native_out records (what the integration wrote to the
CLI's stdin: stream-json user messages, control requests and responses),
play is interactive: before it writes what the CLI wrote after such a record
it waits for the matching line on its own stdin. control_response lines are
matched by request_id, control_requests the integration sends (the SDK's
initialize handshake, interrupts) by subtype and answered with the captured
response under the integration's own request_id, other lines by order. A
line that differs from the expected one ends play with an error naming both.

Everything after CAPTURE is ignored, so play can replace claude, codex,
gemini or opencode wherever an integration launches one: point the
integration at a two-line script that runs 'evcap play CAPTURE "$@"'.`,
		Example: `  evcap play capture.jsonl | my-agent-ui --stdin
  evcap play --speed max capture.jsonl > claude.stdout.jsonl
  evcap play --speed 0.5 --idle-limit 2s capture.jsonl
  printf '#!/bin/sh\nexec evcap play %s "$@"\n' "$PWD/run.jsonl" > claude && chmod +x claude`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := playOptions{sleep: sleep, idleLimit: idle}
			f, err := parseSpeed(speed)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			o.factor = f
			o.stage = envelope.Stage(stage)
			if !o.stage.Valid() {
				return &exitError{code: 2, err: fmt.Errorf("--stage %q: not one of %v", stage, envelope.Stages())}
			}
			if idle < 0 {
				return &exitError{code: 2, err: fmt.Errorf("--idle-limit %v: want a duration >= 0", idle)}
			}
			r, done, err := openInput(s, args[0])
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			defer done()
			return play(cmd.Context(), s, r, args[0], o)
		},
	}
	// The flags of the CLI play stands in for are not play's: ignore them
	// (with the value that follows an unknown flag) instead of failing.
	cmd.FParseErrWhitelist.UnknownFlags = true
	cmd.Flags().StringVar(&speed, "speed", "1", "playback speed factor: 1 as recorded, 2 twice as fast, 0.5 half as fast, max no pauses")
	cmd.Flags().DurationVar(&idle, "idle-limit", 0, "cap every pause at this duration (0: no cap)")
	cmd.Flags().StringVar(&stage, "stage", string(envelope.StageNativeIn), "stage whose lines to write")
	return cmd
}

// parseSpeed turns --speed into the factor pauses are multiplied by.
func parseSpeed(s string) (float64, error) {
	if s == "max" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("--speed %q: want a factor > 0 (1, 2, 0.5 …) or max", s)
	}
	return 1 / v, nil
}

// input is the integration's side of an interactive play: the lines it
// writes to play's stdin, read by one goroutine, and the provider's
// matcher of them (provider.Descriptor.Input).
type input struct {
	lines chan []byte
	err   error // set before lines is closed
	m     provider.InputMatcher
}

// inputMatcher is the matcher of the provider's input lines; a provider
// without one has its lines compared byte for byte.
func inputMatcher(name string) provider.InputMatcher {
	if d, ok := providers.Lookup(name); ok && d.Input != nil {
		return d.Input()
	}
	return exactInput{}
}

// exactInput matches input lines byte for byte (but for a redacted one,
// whose text cannot be compared) and rewrites nothing.
type exactInput struct{}

func (exactInput) Match(want, got []byte, redacted bool) string {
	if !redacted && string(want) != string(got) {
		return "different text"
	}
	return ""
}

func (exactInput) Live(line []byte) []byte { return line }

func startInput(r io.Reader, m provider.InputMatcher) *input {
	in := &input{lines: make(chan []byte, 64), m: m}
	go func() {
		lr := lines.NewReader(r)
		for {
			l, err := lr.Next()
			if l != nil && (err == nil || errors.Is(err, lines.ErrTorn)) {
				in.lines <- append([]byte(nil), l...)
			}
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, lines.ErrTorn) {
					in.err = err
				}
				close(in.lines)
				return
			}
		}
	}()
	return in
}

// play streams the records of one stage in file order (which is sequence
// order for captures written by evcap; a capture out of order is refused
// rather than replayed wrongly).
func play(ctx context.Context, s streams, r io.Reader, name string, o playOptions) error {
	rd := envelope.NewReader(r, name, envelope.ReaderOptions{})
	var last time.Time
	var lastSeq int64
	var in *input
	exit := 0
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		if envelope.CheckOrder(lastSeq, rec.Sequence) != nil || rec.Sequence <= 0 {
			return &exitError{code: 2, err: fmt.Errorf("%s line %d: sequence %d after %d; play needs records in sequence order", name, rd.Line(), rec.Sequence, lastSeq)}
		}
		lastSeq = rec.Sequence
		if rec.Stage == envelope.StageMeta && rec.EventType == envelope.EventCaptureEnd {
			if c := gjson.GetBytes(rec.Payload, "exitCode"); c.Type == gjson.Number {
				exit = int(c.Int())
			}
		}
		at, _, terr := envelope.ParseTimestamp(rec.Timestamp)
		if rec.Stage == envelope.StageNativeOut && o.stage == envelope.StageNativeIn {
			if in == nil {
				in = startInput(s.in, inputMatcher(rec.Provider))
			}
			if err := in.expect(ctx, rec); err != nil {
				return &exitError{code: 1, err: fmt.Errorf("%s sequence %d: %w", name, rec.Sequence, err)}
			}
			// The pause to the next line counts from when the input came.
			if terr == nil {
				last = at
			}
			continue
		}
		if rec.Stage != o.stage || rec.EventType == envelope.EventGap {
			continue
		}
		if terr == nil && !last.IsZero() && o.factor > 0 && at.After(last) {
			d := time.Duration(float64(at.Sub(last)) * o.factor)
			if o.idleLimit > 0 && d > o.idleLimit {
				d = o.idleLimit
			}
			if err := o.sleep(ctx, d); err != nil {
				return err
			}
		}
		if terr == nil {
			last = at
		}
		w := s.out
		if rec.EventType == envelope.EventStderr {
			w = s.err
		}
		line := envelope.DecodeNativeLine(rec.EventType, rec.Payload)
		if o.stage == envelope.StageLegacyOut {
			line = envelope.DecodeNativeLine(envelope.EventStderr, rec.Payload)
		}
		if in != nil {
			line = in.m.Live(line)
		}
		if _, err := w.Write(append(append([]byte(nil), line...), '\n')); err != nil {
			return err
		}
	}
	if exit != 0 {
		return &exitError{code: exit}
	}
	return nil
}

// expect waits for the integration's next input line and checks it
// against the native_out record rec.
func (in *input) expect(ctx context.Context, rec *envelope.Record) error {
	want := envelope.DecodeNativeLine(rec.EventType, rec.Payload)
	if rec.EventType == envelope.EventHTTPRequest {
		return nil // an HTTP request evcap made: nothing comes on stdin
	}
	var got []byte
	var ok bool
	select {
	case <-ctx.Done():
		return ctx.Err()
	case got, ok = <-in.lines:
	}
	if rec.EventType == envelope.EventInputClosed {
		if ok {
			return fmt.Errorf("expected the input to end (the integration closed stdin here), got %s", clipLine(got))
		}
		return nil
	}
	if !ok {
		if in.err != nil {
			return fmt.Errorf("reading stdin: %w; expected %s", in.err, clipLine(want))
		}
		return fmt.Errorf("the input ended; expected %s", clipLine(want))
	}
	if why := in.m.Match(want, got, len(rec.Redactions) > 0); why != "" {
		return fmt.Errorf("the input differs from the capture (%s):\n  expected %s\n  got      %s", why, clipLine(want), clipLine(got))
	}
	return nil
}

func clipLine(b []byte) string {
	s := string(b)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return strings.TrimSpace(s)
}
