package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/minimize"
	"github.com/evcap/evcap/promote"
	"github.com/evcap/evcap/replay"
	"github.com/evcap/evcap/replayrun"
	"github.com/evcap/evcap/scan"
	"github.com/spf13/cobra"
)

func newPromoteCmd(s streams) *cobra.Command {
	var name, dir, fault, execCmd, execName, restored string
	var shrink bool
	var paths machinePaths
	cmd := &cobra.Command{
		Use:   "promote CAPTURE --name NAME",
		Short: "Turn a capture into a fixture directory with goldens, for go test",
		Long: `promote writes DIR/<provider>/NAME/fixture.json (the capture's records,
validated against the fixture schema) and golden/ next to it: normalized
events, terminal render, chat operations, render groups and legacy markers.
Promoting the same capture twice gives byte-identical files.

The capture is sanitized first, exactly as evcap sanitize does (the
--home/--project/--tmp/--config flags mean the same), and the sanitized capture
is scanned as evcap scan does: when anything would still leak, promote refuses,
names each finding as file:line:sequence: rule, and writes nothing.

--minimize first shrinks the capture, by delta debugging, to the fewest native
lines whose native replay still fails the same way (the first divergence comes
from the same native line), and prints how many events were removed. The
failure is a difference between the recorded normalized_out and what the
normalizer gives now (or, with --inject, the fault injected into it; see
evcap replay --help).

--exec 'CMD' also writes golden/exec-NAME.golden (and exec-NAME.command):
CMD's stdout when fed the fixture's native stdout, exactly as
evcap replay FIXTURE --exec 'CMD' --update writes it, so that evcap replay
checks your program against the fixture from then on.`,
		Example: `  evcap promote capture.jsonl --name tools-partial
  cat capture.jsonl | evcap promote - --name tools
  evcap promote capture.jsonl --name dup-text --dir fixtures/testdata --minimize
  evcap promote capture.jsonl --name tools --exec 'node bridge.js' --exec-name bridge`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPromote(cmd.Context(), s, args[0], promoteFlags{name: name, dir: dir, fault: fault,
				execCmd: execCmd, execName: execName, restored: restored, shrink: shrink, paths: &paths})
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "scenario name of the fixture (required)")
	cmd.Flags().StringVar(&dir, "dir", "fixtures/testdata", "root of the fixture tree")
	cmd.Flags().BoolVar(&shrink, "minimize", false, "shrink to the smallest capture that still fails the same way")
	cmd.Flags().StringVar(&execCmd, "exec", "", "also write golden/exec-NAME.golden: this command's stdout on the fixture's native stdout (as evcap replay --exec --update)")
	cmd.Flags().StringVar(&execName, "exec-name", "", "with --exec: the golden's NAME (default: the program's file name)")
	cmd.Flags().StringVar(&restored, "restored", "", "also keep this imported stored session of the same run (evcap import) in the fixture, as restored/: replay then checks that it shows what the live run showed")
	cmd.Flags().StringVar(&fault, "inject", "", "with --minimize: the fault that makes replay fail (see evcap replay --help)")
	paths.flags(cmd)
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

// promoteFlags are the settings of one evcap promote.
type promoteFlags struct {
	name, dir, fault, execCmd, execName, restored string
	shrink                                        bool
	paths                                         *machinePaths
}

// runPromote is evcap promote: sanitize and scan the capture
// (promote.SanitizeAndScan), optionally minimize it, promote it behind
// the scan of its goldens (promote.Checked), then add the restored
// session and the exec golden when asked.
func runPromote(ctx context.Context, s streams, arg string, o promoteFlags) error {
	bad := func(err error) error { return &exitError{code: 2, err: err} }
	src, remove, err := spoolOnce(ctx, s.in, arg)
	if err != nil {
		return bad(err)
	}
	defer remove()
	clean, findings, err := sanitizeForPromote(ctx, src, arg, o.paths)
	if clean != "" {
		defer os.Remove(clean)
	}
	if err != nil {
		return bad(err)
	}
	if len(findings) > 0 {
		for _, f := range findings {
			fmt.Fprintf(s.err, "%s\n", f)
		}
		return &exitError{code: 1, err: fmt.Errorf("%s: refusing to promote: %d finding(s) remain after sanitizing (add a rule or an allowlist entry in %s if one is a false positive)", arg, len(findings), o.paths.config)}
	}
	fx, err := replay.LoadCaptureFile(clean)
	if err != nil {
		return bad(err)
	}
	nopts := normOptions{restored: fx.Restored}
	if _, err := newNormalizerWith(fx.Provider, nopts); err != nil {
		return bad(fmt.Errorf("%s: %w", arg, err))
	}
	norm := func() replay.Normalizer { n, _ := newNormalizerWith(fx.Provider, nopts); return n }
	if o.shrink {
		if fx, err = minimizeForPromote(ctx, s, fx, norm, arg, o.fault); err != nil {
			return err
		}
	}
	m, err := o.paths.machine()
	if err != nil {
		return bad(err)
	}
	out, findings, err := promote.Checked(ctx, fx, promote.Options{Name: o.name, Dir: o.dir, Normalizer: norm, Source: filepath.Base(arg)}, m)
	if err != nil {
		return bad(err)
	}
	if len(findings) > 0 {
		for _, f := range findings {
			fmt.Fprintf(s.err, "%s\n", f)
		}
		return &exitError{code: 1, err: fmt.Errorf("%s: refusing to promote: %d finding(s) in the fixture or its goldens; nothing was written", arg, len(findings))}
	}
	fmt.Fprintf(s.out, "promoted %s to %s (%s, %s)\n", arg, out, fixtures.FileName, goldenList(out))
	if o.restored != "" {
		if err := promoteRestored(ctx, s, out, o.restored, o.paths); err != nil {
			return &exitError{code: 1, err: err}
		}
	}
	if o.execCmd != "" {
		return promoteExec(ctx, s, out, o.execCmd, o.execName)
	}
	return nil
}

// minimizeForPromote shrinks fx to the fewest native lines whose native
// replay still fails the same way, and says how much went.
func minimizeForPromote(ctx context.Context, s streams, fx *fixtures.Fixture, norm func() replay.Normalizer, arg, fault string) (*fixtures.Fixture, error) {
	bad := func(err error) error { return &exitError{code: 2, err: err} }
	ropts := replay.Options{Mode: replay.ModeNative, Normalizer: norm}
	if err := replayrun.Inject(&ropts, fault); err != nil {
		return nil, bad(err)
	}
	fails, m, err := minimize.ReplayFails(fx, ropts)
	if errors.Is(err, minimize.ErrNoFailure) {
		return nil, &exitError{code: 1, err: fmt.Errorf("%s: native replay matches the recorded normalized_out; there is no failure to minimize", arg)}
	}
	if err != nil {
		return nil, bad(err)
	}
	res, err := minimize.Fixture(ctx, fx, fails)
	if err != nil {
		return nil, bad(err)
	}
	fmt.Fprintf(s.out, "minimized: removed %d of %d events, %d left (%d native lines); the failure is still:\n%s",
		res.Before.Events-res.After.Events, res.Before.Events, res.After.Events, res.After.NativeLines, m.Error())
	return res.Fixture, nil
}

// sanitizeForPromote writes the sanitized form of the capture at path to a
// temporary file and scans it (promote.SanitizeAndScan); name is what
// messages and findings call the capture (path, or "-" for a copy of
// standard input). It returns the temporary file (to be removed by the
// caller) and what the scan still finds.
func sanitizeForPromote(ctx context.Context, path, name string, paths *machinePaths) (string, []scan.Finding, error) {
	m, err := paths.machine()
	if err != nil {
		return "", nil, err
	}
	in, err := openCaptureFile(path)
	if err != nil {
		return "", nil, err
	}
	defer in.Close()
	out, err := createTemp("", "evcap-promote-*.jsonl") // removed by main too if a signal cuts the run short
	if err != nil {
		return "", nil, err
	}
	findings, err := promote.SanitizeAndScan(ctx, withContext(ctx, in), name, out, m)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return out.Name(), findings, err
}

// machine is the promote library's view of the path flags.
func (m *machinePaths) machine() (promote.Machine, error) {
	home, project, fallback, tmp, cfg, err := m.resolve()
	return promote.Machine{Home: home, Project: project, DefaultProject: fallback, Temp: tmp, Config: cfg}, err
}
