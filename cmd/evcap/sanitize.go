package main

import (
	"fmt"
	"io"
	"os"

	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/sanitize"
	"github.com/spf13/cobra"
)

// machinePaths are the --home/--project/--tmp flags shared by sanitize and
// scan: the recording machine's paths, defaulting to this machine's.
type machinePaths struct {
	home, project string
	tmp           []string
	config        string
}

func (m *machinePaths) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&m.home, "home", "", "home directory to write as <HOME> (default $HOME)")
	cmd.Flags().StringVar(&m.project, "project", "", "project root to write as <PROJECT> (default: the cwd the capture names, else the working directory)")
	cmd.Flags().StringSliceVar(&m.tmp, "tmp", nil, "temporary directory to write as <TMP>, repeatable (default os.TempDir())")
	cmd.Flags().StringVar(&m.config, "config", redact.ConfigFile, "redaction config (custom rules, allowlist); a missing file is fine")
}

// resolve fills in this machine's values for flags not given. The project
// default is only a fallback: the capture's own cwd wins over it.
func (m *machinePaths) resolve() (home, project, fallback string, tmp []string, cfg redact.Config, err error) {
	home = m.home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	fallback, _ = os.Getwd()
	tmp = m.tmp
	if len(tmp) == 0 {
		tmp = []string{os.TempDir()}
	}
	cfg, err = redact.LoadConfig(m.config)
	return home, m.project, fallback, tmp, cfg, err
}

func newSanitizeCmd(s streams) *cobra.Command {
	var (
		paths     machinePaths
		out       string
		dropTimes bool
		private   bool
	)
	cmd := &cobra.Command{
		Use:   "sanitize IN",
		Short: "Make a capture safe and deterministic to attach or check in",
		Long: `sanitize rewrites a capture so it can leave the machine: secrets and binaries
are redacted (also when split across streamed deltas), the machine's home,
project and temp paths become <HOME>, <PROJECT> and <TMP>, session, message and
tool ids become stable pseudonyms (session-0001, toolu_evcap_0001, ...),
timestamps become offsets from the capture start, and captureId a fixed value.
Every change is added to the record's redactions ledger.

The paths come from the flags, default to this machine's $HOME, working
directory and temp directory, and the project root also from the capture itself
(the cwd it names wins over the working directory, not over --project).
Sanitizing twice gives the same bytes as sanitizing once. IN may be - for
standard input.`,
		Example: `  evcap sanitize run.jsonl -o fixture-run.jsonl
  evcap sanitize --private-text --drop-times run.jsonl > share.jsonl
  evcap sanitize --home /home/ci --project /src/app --tmp /tmp run.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, project, fallback, tmp, cfg, err := paths.resolve()
			if err != nil {
				return err
			}
			opts := sanitize.Options{Home: home, Project: project, DefaultProject: fallback, Temp: tmp,
				DropTimes: dropTimes, PrivateText: private, Config: cfg}
			name := args[0]
			in, closeIn, err := openOnceOrSeekable(cmd.Context(), s, name)
			if err != nil {
				return &exitError{code: 2, err: fmt.Errorf("sanitize: %w", err)}
			}
			defer closeIn()
			in, finish := withProgress(in, progressTo(s, out == "" || out == "-"), name)
			defer finish()
			in = withContext(s.ctx, in)
			if out == "" || out == "-" {
				rep, err := sanitize.SanitizeContext(cmd.Context(), in, name, s.out, opts)
				if err != nil {
					return err
				}
				return reportTorn(s, name, rep)
			}
			// Write next to the target and rename, so a failed or
			// interrupted run never leaves half a capture behind (and IN
			// may equal OUT).
			var rep sanitize.Report
			err = writeFileAtomically(out, 0o600, func(w io.Writer) error {
				var err error
				rep, err = sanitize.SanitizeContext(cmd.Context(), in, name, w, opts)
				return err
			})
			if err != nil {
				return err
			}
			return reportTorn(s, name, rep)
		},
	}
	paths.flags(cmd)
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the sanitized capture here (default standard output)")
	cmd.Flags().BoolVar(&dropTimes, "drop-times", false, "empty the timestamp field instead of writing offsets")
	cmd.Flags().BoolVar(&private, "private-text", false, "replace free text (answers, thinking, prompts, tool outputs) with same-length placeholder text")
	return cmd
}

func reportTorn(s streams, name string, rep sanitize.Report) error {
	if rep.TornLine {
		fmt.Fprintf(s.err, "evcap sanitize: %s: the torn last line was left out\n", name)
	}
	return nil
}
