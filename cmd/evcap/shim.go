package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

func newShimCmd(s streams) *cobra.Command {
	var dir, evcapPath string
	cmd := &cobra.Command{
		Use:   "shim --dir DIR CLI...",
		Short: "Write stand-in executables that record every run of an agent CLI",
		Long: `shim writes, into DIR, one small executable per CLI name (claude, codex,
opencode, gemini or any other). Each runs the next executable of that name on
PATH after DIR under 'evcap record --passthrough', so with DIR first on PATH
any program that launches the CLI, in any language, is recorded without a code
change: stdin, stdout, stderr, the exit status and signals are as without the
shim (evcap prints nothing of its own), and the capture goes to EVCAP_CAPTURE
(a file, or a directory, existing or ending in /, that gets a new file per
run). Redaction is on (EVCAP_NO_REDACT=1 turns it off). With EVCAP_CAPTURE
unset the stand-in just runs the real CLI.

What the program writes to the CLI's stdin (stream-json input, permission
answers) is recorded as native_out, so 'evcap play' can later stand in for
the CLI in front of the same program.`,
		Example: `  evcap shim --dir ~/.evcap/shims claude codex opencode gemini
  EVCAP_CAPTURE=captures/ PATH=~/.evcap/shims:$PATH node my-integration.js`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return &exitError{code: 2, err: errors.New("shim: --dir is required")}
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return &exitError{code: 2, err: fmt.Errorf("shim: --dir: %w", err)}
			}
			if evcapPath == "" {
				if evcapPath, err = os.Executable(); err != nil {
					return fmt.Errorf("shim: cannot find the evcap executable (give --evcap): %w", err)
				}
			}
			if err := os.MkdirAll(abs, 0o755); err != nil {
				return fmt.Errorf("shim: %w", err)
			}
			for _, name := range args {
				if name == "" || strings.ContainsAny(name, "/\\") {
					return &exitError{code: 2, err: fmt.Errorf("shim: %q: want a command name, not a path", name)}
				}
				p := filepath.Join(abs, name)
				if err := os.WriteFile(p, []byte(shimScript(evcapPath, abs, name)), 0o755); err != nil {
					return fmt.Errorf("shim: %w", err)
				}
				// WriteFile keeps the mode of a file that existed.
				if err := os.Chmod(p, 0o755); err != nil {
					return fmt.Errorf("shim: %w", err)
				}
				fmt.Fprintln(s.out, p)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory to write the stand-ins into (put it first on PATH)")
	cmd.Flags().StringVar(&evcapPath, "evcap", "", "evcap executable the stand-ins run (default: this one)")
	return cmd
}

// shimScript is the stand-in for name: a POSIX shell script that hands
// over to evcap at once (exec), so no shell stays between the program and
// the CLI.
func shimScript(evcap, dir, name string) string {
	return "#!/bin/sh\n" +
		"# Written by evcap shim: runs the next " + name + " on PATH after this directory\n" +
		"# under evcap record, capturing to $EVCAP_CAPTURE (see evcap shim --help).\n" +
		"exec " + shQuote(evcap) + " record --shim " + shQuote(dir) + " -- " + shQuote(name) + " \"$@\"\n"
}

func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shimTarget finds the executable the stand-in in dir replaces: the first
// name on PATH in a directory other than dir.
func shimTarget(name, dir, path string) (string, error) {
	skip, _ := os.Stat(dir)
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if st, err := os.Stat(d); err != nil || (skip != nil && os.SameFile(st, skip)) {
			continue
		}
		p := filepath.Join(d, name)
		st, err := os.Stat(p)
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			continue
		}
		return p, nil
	}
	return "", fmt.Errorf("%s: not found on PATH after %s", name, dir)
}
