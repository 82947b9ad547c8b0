package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/spf13/cobra"
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

func newPlayCmdWith(s streams, sleep sleeper) *cobra.Command {
	var speed, stage string
	cmd := &cobra.Command{
		Use:   "play FILE",
		Short: "Write the captured native lines to stdout with their original timing",
		Long: `play prints the lines the agent CLI printed, as it printed them, so a capture
can stand in for the CLI and reproduce a live rendering bug in the real
application (pipe it into the program that normally reads the CLI). The pauses
between lines come from the record timestamps; --speed 2 halves them and
--speed max drops them. stderr records go to stderr.`,
		Example: `  evcap play capture.jsonl | my-agent-ui --stdin
  evcap play capture.jsonl --speed max > claude.stdout.jsonl
  evcap play capture.jsonl --stage legacy_out`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			factor := 0.0
			switch speed {
			case "1":
				factor = 1
			case "2":
				factor = 0.5
			case "max":
			default:
				return &exitError{code: 2, err: fmt.Errorf("--speed %q: want 1, 2 or max", speed)}
			}
			st := envelope.Stage(stage)
			if !st.Valid() {
				return &exitError{code: 2, err: fmt.Errorf("--stage %q: not one of %v", stage, envelope.Stages)}
			}
			r, done, err := openInput(s, args[0])
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			defer done()
			return play(cmd.Context(), s, r, args[0], st, factor, sleep)
		},
	}
	cmd.Flags().StringVar(&speed, "speed", "1", "1 (as recorded), 2 (twice as fast) or max (no pauses)")
	cmd.Flags().StringVar(&stage, "stage", string(envelope.StageNativeIn), "stage whose lines to write")
	return cmd
}

// play streams the records of one stage in file order (which is sequence
// order for captures written by evcap; a capture out of order is refused
// rather than replayed wrongly).
func play(ctx context.Context, s streams, r io.Reader, name string, stage envelope.Stage, factor float64, sleep sleeper) error {
	rd := envelope.NewReader(r, name, envelope.ReaderOptions{})
	var last time.Time
	var lastSeq int64
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		if rec.Sequence <= lastSeq {
			return &exitError{code: 2, err: fmt.Errorf("%s line %d: sequence %d after %d; play needs records in sequence order", name, rd.Line(), rec.Sequence, lastSeq)}
		}
		lastSeq = rec.Sequence
		if rec.Stage != stage {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, rec.Timestamp)
		if err == nil && !last.IsZero() && factor > 0 && at.After(last) {
			if err := sleep(ctx, time.Duration(float64(at.Sub(last))*factor)); err != nil {
				return err
			}
		}
		if err == nil {
			last = at
		}
		w := s.out
		if rec.EventType == envelope.EventStderr {
			w = s.err
		}
		line := envelope.DecodeNativeLine(rec.EventType, rec.Payload)
		if stage == envelope.StageLegacyOut {
			line = envelope.DecodeNativeLine(envelope.EventStderr, rec.Payload)
		}
		if _, err := w.Write(append(append([]byte(nil), line...), '\n')); err != nil {
			return err
		}
	}
}
