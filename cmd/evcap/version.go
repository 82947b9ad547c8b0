package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

func newVersionCmd(s streams) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print evcap's version, the capture schema version and the platform",
		Example: "  evcap version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(s.out, "evcap %s (capture schema v%d, %s %s/%s)\n",
				version, 1, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
