package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/record"
	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/render/chat"
	"github.com/evcap/evcap/render/term"
	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
)

type recordOptions struct {
	output      string
	provider    string
	render      string
	color       string
	passthrough bool
	noRedact    bool
	stdin       bool
	sse         string
	untilIdle   bool
	drain       time.Duration
	// shim is the directory of the evcap shim stand-in that runs this
	// record (hidden --shim DIR): see runShim.
	shim string
	// opencode drives one session of an opencode server (--opencode URL).
	opencode         string
	prompt           string
	model            string
	permissionAnswer string
	// otlp exports spans to this OTLP endpoint as the run goes (--otlp).
	otlp string

	// cumulativeDeltas reads deltas as cumulative snapshots (--cumulative-deltas).
	cumulativeDeltas bool
}

func newRecordCmd(s streams) *cobra.Command {
	var o recordOptions
	cmd := &cobra.Command{
		Use:   "record [flags] -- CMD [ARGS...]",
		Short: "Run an agent CLI and record what it prints, live, into a capture",
		Long: `record runs an agent CLI as a child process and writes everything it prints
to a capture file: each stdout line byte for byte (native_in), the normalized
events derived from it (normalized_out, each naming its native lines), the
legacy IDE-bridge markers (legacy_out) and the child's stderr lines. Payloads
are redacted before they are written unless --no-redact is given. Meanwhile
the run is rendered live on stderr (--render), with a status line when stderr
is a terminal.

The child runs in its own process group. SIGINT, SIGTERM and SIGHUP are
forwarded to it; a second SIGINT kills it. evcap exits with the child's exit
code (128+N when it died by signal N, 127 when the command is not found, 126
when it cannot be executed). The capture always ends with a capture.end
record, also when the child is killed, leaves its last line unterminated, or
leaves a process behind that holds its output open.

Instead of running a command, --stdin records a stream piped into evcap and
--sse attaches to a server-sent-events stream (opencode serve's /event), and
--opencode URL --prompt TEXT drives one session of an opencode server: it
subscribes to /event first, then creates the session and sends the prompt,
records only that session and its subagents' sessions, records its own
requests as native_out, and stops when the session is idle.

When stdin is not a terminal, what the integration writes to the agent's
stdin (stream-json input, permission answers) is passed on at once and
recorded as native_out.`,
		Example: `  evcap record -- claude -p "list the files" --output-format stream-json --verbose
  evcap record -o run.jsonl --render none -- codex exec --json "fix the test"
  evcap record --passthrough -- gemini -p hi --output-format stream-json | jq .type
  claude -p hi --output-format stream-json --verbose | evcap record --stdin
  evcap record --sse http://127.0.0.1:4096/event --until-idle
  evcap record --opencode http://127.0.0.1:4096 --prompt "fix the test" --permission once`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRecord(cmd.Context(), s, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "", "capture file to write (default: a new file under ./"+record.DefaultDir+"/)")
	f.StringVar(&o.provider, "provider", "auto", "agent CLI provider: auto or one of "+strings.Join(providerNames(), ", "))
	f.StringVar(&o.render, "render", "term", "live rendering on stderr: term, chat (chat-message operations as JSONL) or none")
	f.StringVar(&o.color, "color", "auto", "colour the live rendering: auto, always or never")
	f.BoolVar(&o.passthrough, "passthrough", false, "copy the child's stdout unchanged to evcap's stdout as it arrives")
	f.BoolVar(&o.noRedact, "no-redact", false, "write payloads without redacting secrets and paths (the capture may then hold credentials)")
	f.BoolVar(&o.stdin, "stdin", false, "record the stream piped into evcap instead of running a command")
	f.StringVar(&o.sse, "sse", "", "record the data of each event of this server-sent-events URL instead of running a command")
	f.BoolVar(&o.untilIdle, "until-idle", false, "with --stdin or --sse: stop when the session goes idle after being busy")
	f.DurationVar(&o.drain, "drain-timeout", record.DefaultDrainTimeout, "after the child exits, how long to wait for its output pipes to close")
	f.BoolVar(&o.cumulativeDeltas, "cumulative-deltas", false, cumulativeDeltasHelp)
	f.StringVar(&o.shim, "shim", "", "run by an evcap shim stand-in in this directory: run the next CMD on PATH after it, transparently, capturing to $"+capture.EnvVar)
	_ = f.MarkHidden("shim")
	f.StringVar(&o.opencode, "opencode", "", "record one session of this opencode server: subscribe to /event, create the session, send --prompt, stop when it is idle")
	f.StringVar(&o.prompt, "prompt", "", "with --opencode: the message to send")
	f.StringVar(&o.model, "model", "", "with --opencode: providerID/modelID for the prompt (default: the server's)")
	f.StringVar(&o.permissionAnswer, "permission", "", "with --opencode: answer the session's permission requests: once, always or reject (default: leave them to another client)")
	f.StringVar(&o.otlp, "otlp", "", "also export the run as OpenTelemetry GenAI spans to this OTLP/HTTP endpoint as it goes (never slows the agent)")
	return cmd
}

func runRecord(ctx context.Context, s streams, o recordOptions, args []string) error {
	if o.shim != "" {
		return runShim(s, o, args)
	}
	sources := 0
	for _, b := range []bool{len(args) > 0, o.stdin, o.sse != "", o.opencode != ""} {
		if b {
			sources++
		}
	}
	if sources != 1 {
		return &exitError{code: 2, err: fmt.Errorf("record: give exactly one of: -- CMD [ARGS...], --stdin, --sse URL, --opencode URL")}
	}
	if (o.opencode == "") != (o.prompt == "") {
		return &exitError{code: 2, err: fmt.Errorf("record: --opencode URL and --prompt TEXT go together")}
	}
	switch o.permissionAnswer {
	case "", "once", "always", "reject":
	default:
		return &exitError{code: 2, err: fmt.Errorf("record: --permission %q: want once, always or reject", o.permissionAnswer)}
	}
	if o.provider != "auto" {
		if _, err := newNormalizer(o.provider); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("record: --provider: %w", err)}
		}
	}
	errFile, _ := s.err.(*os.File)
	tty := errFile != nil && isTerminal(errFile)
	newNorm := func(p string) (event.Normalizer, error) {
		return newNormalizerWith(p, normOptions{cumulativeDeltas: o.cumulativeDeltas})
	}
	budgetOf(s.ctx).useBase(recordMemoryLimit)
	opts := record.Options{
		Provider:      o.provider,
		NewNormalizer: newNorm,
		Output:        o.output,
		Console:       s.err,
		Status:        tty,
		UntilIdle:     o.untilIdle,
		EvcapVersion:  version,
		DrainTimeout:  o.drain,
		LongLine:      budgetOf(s.ctx).sawLine,
	}
	if o.passthrough {
		opts.Passthrough = s.out
	}
	switch o.render {
	case "term":
		color, err := term.ColorEnabled(term.ColorMode(o.color), os.Getenv, tty)
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("record: --color: %w", err)}
		}
		topts := term.Options{Color: color, GitHubActions: os.Getenv("GITHUB_ACTIONS") == "true"}
		if tty {
			topts.Width = terminalWidth(errFile)
		}
		opts.NewRenderer = func(w io.Writer) record.Renderer { return term.New(w, topts) }
	case "chat":
		opts.NewRenderer = func(w io.Writer) record.Renderer {
			return &chatLive{m: chat.New(chat.Options{}), w: w, now: time.Now}
		}
	case "none":
	default:
		return &exitError{code: 2, err: fmt.Errorf("record: --render %q: want term, chat or none", o.render)}
	}
	if o.noRedact {
		fmt.Fprintln(s.err, "evcap: WARNING: --no-redact: secrets, tokens and home paths the agent prints are written to the capture as they are. Do not share it.")
	} else {
		red, err := newRedactor()
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("record: redaction: %w", err)}
		}
		opts.Redactor = red
	}

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	// A --passthrough reader that goes away must not kill evcap before it
	// has finished the capture: with SIGPIPE caught, the write just fails.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	opts.Signals = sigs
	stopExport := startLiveExport(ctx, s, o.otlp, &opts)

	var res record.Result
	var err error
	switch {
	case o.stdin:
		res, err = record.Stream(s.in, opts)
	case o.sse != "":
		res, err = record.SSE(ctx, o.sse, opts)
	case o.opencode != "":
		res, err = record.Opencode(ctx, record.OpencodeSession{BaseURL: o.opencode, Prompt: o.prompt, Model: o.model,
			Permission: o.permissionAnswer, Title: "evcap record"}, opts)
	default:
		if f, ok := s.in.(*os.File); ok {
			opts.Stdin = f
			// What an integration pipes in (stream-json input, a prompt)
			// is recorded as native_out; a terminal stays the child's.
			opts.RecordStdin = !isTerminal(f)
		}
		res, err = record.Command(args, opts)
	}
	stopExport()
	if res.Path != "" {
		how := ""
		switch {
		case res.Signal != "":
			how = fmt.Sprintf("; %s was killed by %s (exit %d)", args[0], res.Signal, res.ExitCode)
		case len(args) > 0:
			how = fmt.Sprintf("; %s exited with status %d", args[0], res.ExitCode)
		}
		fmt.Fprintf(s.err, "evcap: recorded %d records to %s%s\n", res.Records, res.Path, how)
	}
	if err != nil {
		code := res.ExitCode
		if code == 0 {
			code = 1
		}
		return &exitError{code: code, err: err}
	}
	if res.ExitCode != 0 {
		return &exitError{code: res.ExitCode}
	}
	return nil
}

// newRedactor builds the default redaction: the rules, this machine's home,
// working and temp directories, and the [redact] table of ./.evcap.toml.
func newRedactor() (*redact.Redactor, error) {
	cfg, err := redact.LoadConfig(".evcap.toml")
	if err != nil {
		return nil, err
	}
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	return redact.New(redact.Options{Home: home, Project: cwd, Temp: []string{os.TempDir()}, Config: cfg})
}

// chatLive renders as the chat-message operations a chat bot would make.
type chatLive struct {
	m   *chat.Message
	w   io.Writer
	now func() time.Time
}

func (c *chatLive) Render(e event.Event) error { return chat.WriteJSONL(c.w, c.m.Handle(c.now(), e)) }
func (c *chatLive) Close() error               { return chat.WriteJSONL(c.w, c.m.Close(c.now())) }

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd())
}

// runShim is what an evcap shim stand-in runs: the next real CLI on PATH
// after the shim directory, recorded with --passthrough and without a word
// of evcap's own on the terminal, so that the program that launched the
// stand-in sees what it would see without it: the same bytes on stdout and
// stderr, the same exit status, and death by the same signal.
func runShim(s streams, o recordOptions, args []string) error {
	if len(args) == 0 {
		return &exitError{code: 2, err: errors.New("record --shim: no command given")}
	}
	name := args[0]
	real, err := shimTarget(name, o.shim, os.Getenv("PATH"))
	if err != nil {
		fmt.Fprintf(s.err, "%s: not found\n", name)
		return &exitError{code: 127}
	}
	argv := append([]string{real}, args[1:]...)
	target := os.Getenv(capture.EnvVar)
	if target == "" {
		// Capture is off: become the CLI.
		err := syscall.Exec(real, append([]string{name}, args[1:]...), os.Environ())
		return &exitError{code: 126, err: fmt.Errorf("%s: %w", real, err)}
	}
	budgetOf(s.ctx).useBase(recordMemoryLimit)
	opts := record.Options{
		Provider:      "auto",
		NewNormalizer: func(p string) (event.Normalizer, error) { return newNormalizer(p) },
		Console:       s.err,
		EvcapVersion:  version,
		Passthrough:   s.out,
		Transparent:   true,
		DrainTimeout:  record.DefaultDrainTimeout,
		LongLine:      budgetOf(s.ctx).sawLine,
	}
	if st, err := os.Stat(target); (err == nil && st.IsDir()) || strings.HasSuffix(target, "/") {
		opts.Dir = target
	} else {
		opts.Output = target
	}
	if os.Getenv(capture.NoRedactEnvVar) != "1" {
		red, err := newRedactor()
		if err != nil {
			// No capture rather than an unredacted one; the CLI still runs.
			err := syscall.Exec(real, append([]string{name}, args[1:]...), os.Environ())
			return &exitError{code: 126, err: fmt.Errorf("%s: %w", real, err)}
		}
		opts.Redactor = red
	}
	if f, ok := s.in.(*os.File); ok {
		opts.Stdin = f
		opts.RecordStdin = !isTerminal(f)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, shimSignals()...)
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	opts.Signals = sigs
	res, _ := record.Command(argv, opts)
	signal.Stop(sigs)
	signal.Stop(pipe)
	if res.Signal != "" {
		// Die the way the CLI died, so the parent sees the same wait status.
		dieBy(res.Signal)
	}
	if res.ExitCode != 0 {
		return &exitError{code: res.ExitCode}
	}
	return nil
}
