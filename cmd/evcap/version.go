package main

import (
	"fmt"
	"runtime"

	"github.com/evcap/evcap/envelope"
	"github.com/spf13/cobra"
)

func newVersionCmd(s streams) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print evcap's version, the capture schema version and the platform",
		Example: "  evcap version\n  evcap --version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(s.out, versionLine())
			return err
		},
	}
}

// versionLine is what evcap version and evcap --version print.
func versionLine() string {
	return fmt.Sprintf("evcap %s (capture schema v%d, %s %s/%s)",
		version, envelope.SchemaVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
