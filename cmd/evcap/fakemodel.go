package main

import (
	"fmt"
	"net"
	"os"
	"time"

	"github.com/evcap/evcap/fakemodel"
	"github.com/spf13/cobra"
)

type fakeModelOptions struct {
	scenario   string
	addr       string
	logFile    string
	workdir    string
	chunkDelay time.Duration
}

func newFakeModelCmd(s streams) *cobra.Command {
	var o fakeModelOptions
	cmd := &cobra.Command{
		Use:   "fake-model --scenario FILE [--addr 127.0.0.1:0]",
		Short: "Serve scripted model turns to agent CLIs on a loopback address (for tests)",
		Long: `fake-model serves a scripted conversation over the wire protocols of the
Anthropic Messages, OpenAI Responses, OpenAI Chat Completions and Gemini APIs,
so that the real agent CLIs can be run offline against it. It prints the base
URL it listens on as its first line of output, then serves until interrupted.`,
		Example: `  evcap fake-model --scenario fakemodel/testdata/tools.json
  evcap fake-model --scenario tools.json --addr 127.0.0.1:8088 --log requests.jsonl
  # then, for instance:
  ANTHROPIC_BASE_URL=http://127.0.0.1:8088 ANTHROPIC_API_KEY=dummy claude -p hi --output-format stream-json --verbose`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFakeModel(cmd, s, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.scenario, "scenario", "", "scenario JSON file (required)")
	f.StringVar(&o.addr, "addr", "127.0.0.1:0", "address to listen on (port 0 picks a free port)")
	f.StringVar(&o.logFile, "log", "", "append one JSON line per request to this file")
	f.StringVar(&o.workdir, "workdir", "", "directory relative tool paths are joined to when a request does not state one")
	f.DurationVar(&o.chunkDelay, "chunk-delay", 0, "pause after each streamed delta (e.g. 20ms, to watch a live renderer)")
	_ = cmd.MarkFlagRequired("scenario")
	return cmd
}

func runFakeModel(cmd *cobra.Command, s streams, o fakeModelOptions) error {
	sc, err := fakemodel.LoadScenarioFile(o.scenario)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	opt := fakemodel.Options{Workdir: o.workdir, ChunkDelay: o.chunkDelay}
	if o.logFile != "" {
		lf, err := os.OpenFile(o.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("open request log: %w", err)
		}
		defer lf.Close()
		opt.Log = lf
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.addr, err)
	}
	if _, err := fmt.Fprintf(s.out, "http://%s\n", ln.Addr()); err != nil {
		ln.Close()
		return err
	}
	return fakemodel.New(sc, opt).Serve(cmd.Context(), ln)
}
