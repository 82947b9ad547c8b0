package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/evcap/evcap/export"
)

type exportOptions struct {
	otlp     string
	headers  []string
	content  bool
	workers  int
	ledger   string
	service  string
	dryRun   bool
	progress string
}

func newExportCmd(s streams) *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export [flags] CAPTURE|FIXTURE|DIR|-...",
		Short: "Send captures to an OpenTelemetry tracing backend as GenAI traces",
		Long: `export turns each capture into one OpenTelemetry trace that follows the GenAI
semantic conventions: an invoke_agent root span for the run, a chat span per
model turn (model, tokens), an execute_tool span per tool call (name, call id,
status), and span events for retries, errors, rate limits and permission
prompts. Directories are walked for *.jsonl captures and fixture directories.

Trace and span ids come from the capture id and sequence numbers, so the same
capture always gives the same ids; --ledger FILE also skips captures that were
sent before. Text content (answers, tool arguments and output) is left out
unless --content is given, and is then the capture's own redacted text.

Without --otlp, the standard OTEL_EXPORTER_OTLP_ENDPOINT (or
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) and OTEL_EXPORTER_OTLP_HEADERS are used.
Exit status: 0 all sent, 1 some captures could not be read or sent, 2 bad usage.`,
		Example: `  evcap export --otlp http://127.0.0.1:4318 run.jsonl
  OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 evcap export ./evcap-captures
  evcap export --ledger exported.tsv --workers 8 --otlp http://127.0.0.1:4318 /srv/captures
  evcap export --dry-run fixtures/testdata/claude/tools     # print the spans, send nothing`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd.Context(), s, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.otlp, "otlp", "", "OTLP/HTTP endpoint base URL, e.g. http://127.0.0.1:4318 (default: OTEL_EXPORTER_OTLP_ENDPOINT)")
	f.StringArrayVar(&o.headers, "header", nil, "extra request header KEY=VALUE (repeatable; OTEL_EXPORTER_OTLP_HEADERS is honoured too)")
	f.BoolVar(&o.content, "content", false, "include text content (answers, tool arguments and output; the capture's redacted text)")
	f.IntVar(&o.workers, "workers", 4, "captures read at once")
	f.StringVar(&o.ledger, "ledger", "", "file remembering exported captures; those already in it are not sent again")
	f.StringVar(&o.service, "service", export.DefaultServiceName, "service.name of the exported spans")
	f.BoolVar(&o.dryRun, "dry-run", false, "print each span as a JSON line instead of sending")
	f.StringVar(&o.progress, "progress", "auto", "progress on stderr: auto (when stderr is a terminal), always, never")
	_ = cmd.RegisterFlagCompletionFunc("progress", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runExport(ctx context.Context, s streams, o exportOptions, paths []string) error {
	headers := map[string]string{}
	for _, h := range o.headers {
		k, v, ok := strings.Cut(h, "=")
		if !ok || k == "" {
			return fmt.Errorf("--header %q: want KEY=VALUE", h)
		}
		headers[k] = v
	}
	if !o.dryRun && o.otlp == "" && os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return fmt.Errorf("no OTLP endpoint: give --otlp URL or set OTEL_EXPORTER_OTLP_ENDPOINT (or use --dry-run)")
	}
	var ledger *export.Ledger
	if o.ledger != "" {
		var err error
		if ledger, err = export.OpenLedger(o.ledger); err != nil {
			return err
		}
	}

	var send func(context.Context, *export.Span)
	var sender *export.Sender
	if o.dryRun {
		var mu sync.Mutex
		enc := json.NewEncoder(s.out)
		send = func(_ context.Context, sp *export.Span) {
			mu.Lock()
			defer mu.Unlock()
			_ = enc.Encode(spanLine(sp))
		}
	} else {
		var err error
		sender, err = export.NewSender(ctx, export.SenderOptions{Endpoint: o.otlp, Headers: headers, ServiceName: o.service, Version: version})
		if err != nil {
			return err
		}
		send = sender.Send
	}

	bar := exportProgress(s.err, o.progress)
	res, walkErr := export.Fleet(ctx, paths, send, export.FleetOptions{
		Options: export.Options{Content: o.content, Base: time.Now().UTC().Truncate(time.Second)},
		Workers: o.workers, Ledger: ledger, Stdin: s.in,
		Progress: func(r export.FleetResult) {
			if bar != nil {
				_ = bar.Set64(r.Captures + r.Skipped + r.Failed)
				bar.Describe(fmt.Sprintf("%d spans", r.Spans))
			}
		},
	})
	if bar != nil {
		_ = bar.Finish()
		fmt.Fprintln(s.err)
	}
	var sendErr error
	if sender != nil {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		sendErr = sender.Close(closeCtx)
		cancel()
	}
	for _, err := range res.Errors {
		fmt.Fprintln(s.err, "evcap export:", err)
	}
	if res.Failed > int64(len(res.Errors)) {
		fmt.Fprintf(s.err, "evcap export: … and %d more\n", res.Failed-int64(len(res.Errors)))
	}
	if ctx.Err() != nil {
		return &exitError{code: 130, err: fmt.Errorf("interrupted after %d captures (ledger not updated)", res.Captures)}
	}
	if walkErr != nil {
		return walkErr
	}
	if sendErr != nil {
		return &exitError{code: 1, err: fmt.Errorf("sent %d captures, but: %w", res.Captures, sendErr)}
	}
	if ledger != nil {
		if err := ledger.Save(); err != nil {
			return err
		}
	}
	verb := "sent"
	if o.dryRun {
		verb = "printed"
	}
	fmt.Fprintf(s.err, "evcap export: %s %d spans of %d captures (%d already exported, %d unreadable)\n",
		verb, res.Spans, res.Captures, res.Skipped, res.Failed)
	if res.Failed > 0 {
		return &exitError{code: 1}
	}
	return nil
}

// exportProgress is a progress display on w when it is a terminal (or
// when asked); nil otherwise. The total is unknown while the tree is
// walked, so it counts up.
func exportProgress(w io.Writer, mode string) *progressbar.ProgressBar {
	show := mode == "always"
	if mode == "auto" {
		if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
			show = true
		}
	}
	if !show {
		return nil
	}
	return progressbar.NewOptions64(-1, progressbar.OptionSetWriter(w), progressbar.OptionSetItsString("captures"),
		progressbar.OptionShowIts(), progressbar.OptionShowCount(), progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSpinnerType(14))
}

// spanJSON is the --dry-run form of a span.
type spanJSON struct {
	TraceID  string            `json:"traceId"`
	SpanID   string            `json:"spanId"`
	ParentID string            `json:"parentSpanId,omitempty"`
	Name     string            `json:"name"`
	Start    string            `json:"start"`
	End      string            `json:"end"`
	Error    string            `json:"error,omitempty"`
	Attrs    map[string]string `json:"attributes"`
	Events   []string          `json:"events,omitempty"`
}

func spanLine(sp *export.Span) spanJSON {
	j := spanJSON{
		TraceID: sp.Trace.String(), SpanID: sp.ID.String(), Name: sp.Name,
		Start: sp.Start.UTC().Format(time.RFC3339Nano), End: sp.End.UTC().Format(time.RFC3339Nano),
		Attrs: map[string]string{},
	}
	if sp.Parent.IsValid() {
		j.ParentID = sp.Parent.String()
	}
	if sp.Failed {
		j.Error = sp.StatusMessage
		if j.Error == "" {
			j.Error = "error"
		}
	}
	for _, a := range sp.Attrs {
		j.Attrs[string(a.Key)] = a.Value.String()
	}
	for _, e := range sp.Events {
		j.Events = append(j.Events, e.Name)
	}
	return j
}
