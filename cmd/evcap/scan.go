package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/evcap/evcap/sanitize"
	"github.com/spf13/cobra"
)

func newScanCmd(s streams) *cobra.Command {
	var paths machinePaths
	cmd := &cobra.Command{
		Use:   "scan PATH...",
		Short: "Fail when captures or fixtures still hold secrets, machine paths or volatile ids",
		Long: `scan is the gate for CI and pre-commit hooks. It reads captures (*.jsonl) and
fixtures (fixture.json), descending into directories, and prints one line per
finding as FILE:LINE:SEQUENCE: RULE (SEQUENCE is 0 for lines without one):
a secret or binary the redaction rules match, an absolute home, project or temp
path (from the flags, this machine's defaults, and the cwd the file itself
names), or a volatile id that evcap sanitize would replace with a pseudonym.
The allowlist of .evcap.toml is honoured. It exits 1 when anything was found,
0 when everything is clean.`,
		Example: `  evcap scan testdata/fixtures
  evcap scan run.jsonl
  evcap scan --home /home/ci --tmp /tmp fixtures/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, project, _, tmp, cfg, err := paths.resolve()
			if err != nil {
				return err
			}
			opts := sanitize.ScanOptions{Home: home, Project: project, Temp: tmp, Config: cfg}
			var files []string
			for _, a := range args {
				fi, err := os.Stat(a)
				if err != nil {
					return err
				}
				if !fi.IsDir() {
					files = append(files, a)
					continue
				}
				err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
					if err != nil {
						return err
					}
					if !d.IsDir() && (strings.HasSuffix(p, ".jsonl") || d.Name() == "fixture.json") {
						files = append(files, p)
					}
					return nil
				})
				if err != nil {
					return err
				}
			}
			found := 0
			for _, name := range files {
				f, err := os.Open(name)
				if err != nil {
					return err
				}
				fs, err := sanitize.Scan(f, name, opts)
				f.Close()
				if err != nil {
					return err
				}
				for _, x := range fs {
					fmt.Fprintln(s.out, x)
				}
				found += len(fs)
			}
			if found > 0 {
				return &exitError{code: 1, err: fmt.Errorf("scan: %d finding(s) in %d file(s); run evcap sanitize on them", found, len(files))}
			}
			return nil
		},
	}
	paths.flags(cmd)
	return cmd
}
