package replay

import (
	"context"
	"fmt"
)

// ExecGolden is the name, inside a fixture's golden directory, of the
// golden an exec replay called name compares with.
func ExecGolden(name string) string { return "exec-" + name + ".golden" }

// ExecCheck is an exec replay to compare with a golden.
type ExecCheck struct {
	// Exec says how to run the command; its Chunking and Lockstep are set
	// per run.
	Exec ExecOptions
	// Chunkings are the splits to try (DefaultChunkings when empty).
	Chunkings []Chunking
	// Check names the comparison in reports ("exec bridge → golden/exec-bridge.golden").
	Check string
	// Update is the command that accepts the new output, for reports.
	Update string
}

// CheckExec runs the command over lines once per chunking and compares
// each stdout (and a zero exit status) with want. It returns the outputs,
// one per chunking, and a *Mismatch for each chunking that differed,
// explained by a second, lockstep run of that chunking (so the report
// names the native lines written just before the diverging output line;
// when the second run does not differ the way the first did, the first
// run's report is kept). The error is an ErrExecStart or the context's.
func CheckExec(ctx context.Context, lines []NativeLine, want []byte, c ExecCheck) ([]*Driven, []*Mismatch, error) {
	chunkings := c.Chunkings
	if len(chunkings) == 0 {
		chunkings = DefaultChunkings()
	}
	var (
		runs []*Driven
		bad  []*Mismatch
	)
	for _, ch := range chunkings {
		o := c.Exec
		o.Chunking, o.Lockstep = ch, false
		d, err := Exec(ctx, lines, o)
		if err != nil {
			return runs, bad, err
		}
		if err := ctx.Err(); err != nil {
			return runs, bad, err
		}
		runs = append(runs, d)
		m := CompareDriven(fmt.Sprintf("%s, chunking %s", c.Check, ch), want, d, lines, c.Update)
		if m == nil {
			continue
		}
		o.Lockstep = true
		if d2, err := Exec(ctx, lines, o); err == nil {
			if m2 := CompareDriven(m.Check, want, d2, lines, c.Update); m2 != nil && m2.Line == m.Line && m2.Got == m.Got {
				m = m2
			}
		}
		bad = append(bad, m)
	}
	return runs, bad, nil
}
