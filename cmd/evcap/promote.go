package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/promote"
	"github.com/evcap/evcap/replay"
	"github.com/spf13/cobra"
)

func newPromoteCmd(s streams) *cobra.Command {
	var name, dir, fault string
	var minimize bool
	cmd := &cobra.Command{
		Use:   "promote CAPTURE --name NAME",
		Short: "Turn a capture into a fixture directory with goldens, for go test",
		Long: `promote writes DIR/<provider>/NAME/fixture.json (the capture's records,
validated against the fixture schema) and golden/ next to it: normalized
events, terminal render, chat operations, render groups and legacy markers.
Promoting the same capture twice gives byte-identical files.

--minimize first shrinks the capture, by delta debugging, to the fewest native
lines whose native replay still fails the same way (the first divergence comes
from the same native line), and prints how many events were removed. The
failure is a difference between the recorded normalized_out and what the
normalizer gives now (or, with --inject, the fault injected into it; see
evcap replay --help).`,
		Example: `  evcap promote capture.jsonl --name tools-partial
  evcap promote capture.jsonl --name dup-text --dir fixtures/testdata --minimize`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := func(err error) error { return &exitError{code: 2, err: err} }
			fx, err := replay.LoadCaptureFile(args[0])
			if err != nil {
				return bad(err)
			}
			if _, err := newNormalizer(fx.Provider); err != nil {
				return bad(fmt.Errorf("%s: %w", args[0], err))
			}
			norm := func() replay.Normalizer { n, _ := newNormalizer(fx.Provider); return n }
			if minimize {
				ropts := replay.Options{Mode: replay.ModeNative, Normalizer: norm}
				if err := inject(&ropts, fault); err != nil {
					return bad(err)
				}
				fails, m, err := promote.FailsLike(fx, ropts)
				if errors.Is(err, promote.ErrNoFailure) {
					return &exitError{code: 1, err: fmt.Errorf("%s: native replay matches the recorded normalized_out; there is no failure to minimize", args[0])}
				}
				if err != nil {
					return bad(err)
				}
				small, removed, err := promote.Minimize(fx, fails)
				if err != nil {
					return bad(err)
				}
				fmt.Fprintf(s.out, "minimized: removed %d of %d events, %d left (%d native lines); the failure is still:\n%s",
					removed, len(fx.Events), len(small.Events), len(small.Stage(envelope.StageNativeIn)), m.Error())
				fx = small
			}
			out, err := promote.Promote(fx, promote.Options{Name: name, Dir: dir, Normalizer: norm, Source: filepath.Base(args[0])})
			if err != nil {
				return bad(err)
			}
			fmt.Fprintf(s.out, "promoted %s to %s (%s, %s)\n", args[0], out, fixtures.FileName, goldenList(out))
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "scenario name of the fixture (required)")
	cmd.Flags().StringVar(&dir, "dir", "fixtures/testdata", "root of the fixture tree")
	cmd.Flags().BoolVar(&minimize, "minimize", false, "shrink to the smallest capture that still fails the same way")
	cmd.Flags().StringVar(&fault, "inject", "", "with --minimize: the fault that makes replay fail (see evcap replay --help)")
	_ = cmd.MarkFlagRequired("name")
	return cmd
}

func goldenList(dir string) string {
	ents, err := os.ReadDir(filepath.Join(dir, fixtures.GoldenDir))
	if err != nil {
		return "no goldens"
	}
	var s string
	for i, e := range ents {
		if i > 0 {
			s += ", "
		}
		s += fixtures.GoldenDir + "/" + e.Name()
	}
	return s
}
