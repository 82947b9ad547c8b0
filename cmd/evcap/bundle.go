package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/evcap/evcap/bundle"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/sanitize"
	"github.com/evcap/evcap/scan"
	"github.com/evcap/evcap/source"
	"github.com/spf13/cobra"
)

type bundleOptions struct {
	out          string
	printSummary bool
	privateText  bool
	sanitized    bool
	home         string
	project      string
	temp         []string
}

func newBundleCmd(s streams) *cobra.Command {
	var o bundleOptions
	cmd := &cobra.Command{
		Use:   "bundle CAPTURE [-o FILE] [--print-summary]",
		Short: "Make one leak-checked zip of a capture to attach to a bug report",
		Long: `bundle sanitizes a capture (secrets, machine paths and volatile ids, as
evcap sanitize does) and writes one zip archive holding:

  summary.md     what happened, ready to paste into an issue: turns, tools,
                 errors, retries, the first error, the last events
  manifest.json  evcap and agent CLI versions, provider, OS, the agent's
                 flags (credentials masked), exit status, counts per stage
                 and event type, and the census of native events the
                 normalizer does not know
  capture.jsonl  the sanitized capture

Before anything is written, every one of these files is scanned as evcap scan
would; if the scan finds anything, nothing is written and the exit status is 1,
with each finding named as FILE:LINE (sequence N): rule RULE.

Machine paths default to $HOME, the working directory (unless the capture
names its own) and the temporary directory; .evcap.toml in the working
directory adds rules and allowlist entries. --print-summary prints summary.md
(after the same scan) instead of writing the archive.`,
		Example: `  evcap bundle run.jsonl                    # writes run.bundle.zip
  evcap bundle run.jsonl -o /tmp/report.zip --private-text
  evcap bundle --print-summary run.jsonl | gh issue comment 42 --body-file -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBundle(cmd, s, args[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "output", "o", "", "archive to write (default: CAPTURE's name with .bundle.zip, in the working directory)")
	f.BoolVar(&o.printSummary, "print-summary", false, "print summary.md to stdout instead of writing the archive")
	f.BoolVar(&o.privateText, "private-text", false, "replace free text (prompts, answers, thinking, tool output) with placeholder text")
	f.BoolVar(&o.sanitized, "sanitized", false, "CAPTURE is already sanitized (evcap sanitize with your options): bundle it as it is, after the scan")
	f.StringVar(&o.home, "home", "", "home directory to hide (default $HOME)")
	f.StringVar(&o.project, "project", "", "project root to hide (default: the one the capture names, else the working directory)")
	f.StringSliceVar(&o.temp, "temp", nil, "temporary directories to hide (default: the system's)")
	return cmd
}

func runBundle(cmd *cobra.Command, s streams, name string, o bundleOptions) error {
	if name == "-" && o.out == "" && !o.printSummary {
		return &exitError{code: 2, err: errors.New("bundle -: give -o OUT (standard input has no name to call the archive by)")}
	}
	// A FIFO or standard input is read once, into a temporary copy that
	// sanitize can read twice (source.Spool); a regular file is read in
	// place.
	var f *os.File
	var err error
	switch fi, serr := os.Stat(name); {
	case name == "-":
		sf, ok := s.in.(*os.File)
		if !ok || sf == nil {
			return &exitError{code: 2, err: errors.New("bundle: standard input (-): no standard input to read")}
		}
		f = sf
	case serr == nil && fi.Mode()&os.ModeNamedPipe != 0:
		f, err = os.Open(name)
	default:
		f, err = openCaptureFile(name)
	}
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("bundle: %w", err)}
	}
	if name != "-" {
		defer f.Close()
	}
	var src io.Reader = f // a regular file is read in place
	if fi, serr := f.Stat(); serr == nil && !fi.Mode().IsRegular() {
		r, release := source.Interruptible(cmd.Context(), f)
		defer release()
		src = r
	}
	in, spooled, err := source.Spool(cmd.Context(), src, name, func() (*os.File, error) { return createTemp("", "evcap-bundle-in-*.jsonl") })
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("bundle: %w", err)}
	}
	if spooled {
		defer func() {
			in.Close()
			os.Remove(in.Name())
			forgetTemp(in.Name())
		}()
	}
	home, project, temp := o.home, o.project, o.temp
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	cwd, _ := os.Getwd()
	if len(temp) == 0 {
		temp = []string{os.TempDir()}
	}
	cfg, err := redact.LoadConfig(redact.ConfigFile)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	scratch, err := createTemp("", "evcap-bundle-*.jsonl") // main removes it too if a signal cuts the run short
	if err != nil {
		return err
	}
	defer func() {
		scratch.Close()
		os.Remove(scratch.Name())
	}()
	opts := bundle.Options{
		EvcapVersion:     version,
		Sanitize:         sanitize.Options{Home: home, Project: project, DefaultProject: cwd, Temp: temp, PrivateText: o.privateText, Config: cfg},
		AlreadySanitized: o.sanitized,
		Scan:             scan.Options{Home: home, Project: project, Temp: temp, Config: cfg},
		Normalizer:       func(p string) (event.Normalizer, error) { return newNormalizer(p) },
	}
	b, err := bundle.Build(cmd.Context(), in, name, scratch, opts)
	if errors.Is(err, bundle.ErrLeak) {
		return &exitError{code: 1, err: fmt.Errorf("bundle %s: %w", name, err)}
	}
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if o.printSummary {
		_, err := s.out.Write(b.Summary)
		return err
	}
	out := o.out
	if out == "" {
		out = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)) + ".bundle.zip"
	}
	if err := writeAtomically(out, b.WriteZip); err != nil {
		return &exitError{code: 2, err: err}
	}
	fmt.Fprintf(s.err, "evcap: wrote %s (%s; scan clean)\n", out, strings.Join(b.Manifest.Files, ", "))
	return nil
}

// writeAtomically is writeFileAtomically for files others read (mode
// 0644): a bundle or a view report.
func writeAtomically(path string, write func(w io.Writer) error) error {
	return writeFileAtomically(path, 0o644, write)
}

// errNotRegular is wrapped when a command that reads a capture by name is
// given something that is not a regular file.
var errNotRegular = errors.New("not a regular file")

// openCaptureFile opens a capture named on the command line for a command
// that reads it more than once or seeks in it (sanitize learns the
// project root first; bundle and promote read it again after sanitizing).
// A directory, a named pipe, a socket or a device is refused at once with
// a message that says what it is, instead of blocking on it or reading it
// as an endless or empty stream; an unreadable file fails at the open.
func openCaptureFile(name string) (*os.File, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	switch m := fi.Mode(); {
	case m.IsDir():
		return nil, fmt.Errorf("%s is a directory, %w: give a capture file (for a fixture directory, use its fixture.json with evcap replay or cat)", name, errNotRegular)
	case m&os.ModeNamedPipe != 0:
		return nil, fmt.Errorf("%s is a named pipe, %w: evcap reads this capture more than once; save it to a file first (sanitize also reads - from a pipe)", name, errNotRegular)
	case !m.IsRegular():
		return nil, fmt.Errorf("%s is a %v, %w: give a capture file", name, m.Type(), errNotRegular)
	}
	return os.Open(name)
}
