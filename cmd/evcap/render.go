package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/render/chat"
	"github.com/evcap/evcap/render/groups"
	"github.com/evcap/evcap/render/legacy"
	"github.com/evcap/evcap/render/matrix"
	"github.com/evcap/evcap/render/term"
	"github.com/evcap/evcap/source"
	"github.com/spf13/cobra"
)

// matrixTokenEnv holds the Matrix access token for render --matrix-room.
// A token on the command line would end up in shell history and ps output,
// so there is deliberately no flag for it.
const matrixTokenEnv = "EVCAP_MATRIX_TOKEN"

type renderOptions struct {
	format     string
	color      string
	width      int
	room       string
	homeserver string
	// provider names the provider when it cannot be told from the input
	// (--provider); "auto" detects it.
	provider string
}

func newRenderCmd(s streams) *cobra.Command {
	var o renderOptions
	cmd := &cobra.Command{
		Use:   "render [--format term|chat|groups|legacy] [--color auto|always|never] [--width N] FILE|-",
		Short: "Show a capture or raw agent CLI output the way a terminal, a chat bot or a UI would",
		Long: `render re-drives evcap's renderers over recorded events.

FILE is an evcap capture or raw agent CLI output (as for evcap normalize). For a
capture, its normalized_out records are rendered when it has any, otherwise its
native_in records go through the provider's normalizer; raw output always does.

Formats:
  term    the live terminal / CI log view. Colour: --color auto (the default)
          colours only when stdout is a terminal and NO_COLOR is unset; always
          and never force it. --width wraps text (default: the terminal's
          width, or no wrapping when stdout is not a terminal). With
          GITHUB_ACTIONS=true tool uses and fatal errors also become
          ::notice:: and ::error:: annotations.
  chat    the operations of a progressive chat message (send, edit, final
          answer) as JSON lines {"op","at","text","final"}. "at" counts
          milliseconds from the first event, on the capture's timestamps, so
          the one-edit-per-second limit is replayed exactly. Raw output has no
          timestamps: all its events count as simultaneous, which leaves the
          first message and the final answer.
          With --matrix-room and --matrix-homeserver the operations are sent to
          that Matrix room instead (as fast as the server takes them), one
          message edited in place; the access token is read from
          EVCAP_MATRIX_TOKEN. If the server refuses an edit, only the final
          answer is sent as a new message.
  groups  the blocks a chat UI would hold (per message thinking, text and tool
          blocks with status), as indented JSON.
  legacy  the IDE-bridge marker lines ([CONTENT_DELTA] …).

FILE may also be a fixture directory or its fixture.json (rendered from the
fixture's normalized_out events), or - for standard input. The input is read
once, streaming, so pipes and FIFOs work: a capture is rendered from its
normalized_out records when one appears among its first 4096 records (a
recorded capture interleaves them with its native lines).`,
		Example: `  evcap render capture.jsonl
  evcap render --color never --width 80 capture.jsonl
  claude -p hi --output-format stream-json --verbose | evcap render -
  evcap render --format chat capture.jsonl
  EVCAP_MATRIX_TOKEN=syt_… evcap render --format chat \
      --matrix-homeserver https://matrix.example.org --matrix-room '!abc:example.org' capture.jsonl
  evcap render --format groups capture.jsonl | jq '.messages[].blocks[].status'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.check(cmd); err != nil {
				return &exitError{code: 2, err: err}
			}
			return runRender(cmd.Context(), s, args[0], o, cmd.Flags().Changed("width"))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "term", "term, chat, groups or legacy")
	f.StringVar(&o.color, "color", "auto", "term colour: auto, always or never")
	f.IntVar(&o.width, "width", 0, "term wrap width in columns (0: no wrapping)")
	f.StringVar(&o.room, "matrix-room", "", "chat: send to this Matrix room id (!…:server); token from "+matrixTokenEnv)
	f.StringVar(&o.homeserver, "matrix-homeserver", "", "chat: base URL of the Matrix homeserver")
	f.StringVar(&o.provider, "provider", "auto", "which CLI printed native lines that are rendered through a normalizer: auto or one of "+strings.Join(providerNames(), ", "))
	return cmd
}

// check refuses flag combinations that would be silently ignored.
func (o renderOptions) check(cmd *cobra.Command) error {
	switch o.format {
	case "term", "chat", "groups", "legacy":
	default:
		return fmt.Errorf("--format %q is not one of term, chat, groups, legacy", o.format)
	}
	changed := cmd.Flags().Changed
	if o.format != "term" {
		for _, name := range []string{"color", "width"} {
			if changed(name) {
				return fmt.Errorf("--%s applies to --format term only", name)
			}
		}
	}
	if o.width < 0 {
		return fmt.Errorf("--width %d: must be 0 or more", o.width)
	}
	if (o.room == "") != (o.homeserver == "") {
		return errors.New("--matrix-room and --matrix-homeserver go together")
	}
	if o.room != "" && o.format != "chat" {
		return errors.New("--matrix-room needs --format chat")
	}
	return nil
}

// eventRenderer is what each format does with the stream of events.
type eventRenderer interface {
	render(at time.Time, e event.Event) error
	close(at time.Time) error
}

func runRender(ctx context.Context, s streams, name string, o renderOptions, widthSet bool) error {
	var r eventRenderer
	out := bufio.NewWriterSize(s.out, 64<<10)
	var sent *matrixRender
	switch o.format {
	case "term":
		opts, err := termOptions(s, o, widthSet)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		r = termRender{term.New(out, opts)}
	case "chat":
		if o.room != "" {
			sink, err := matrix.New(matrix.Config{Homeserver: o.homeserver, Room: o.room, Token: os.Getenv(matrixTokenEnv)})
			if err != nil {
				if errors.Is(err, matrix.ErrConfig) && os.Getenv(matrixTokenEnv) == "" {
					err = fmt.Errorf("%w (set %s to the access token)", err, matrixTokenEnv)
				}
				return &exitError{code: 2, err: err}
			}
			sent = &matrixRender{ctx: ctx, m: chat.New(chat.Options{}), d: &chat.Delivery{Sink: sink}}
			r = sent
		} else {
			r = chatRender{m: chat.New(chat.Options{}), w: out}
		}
	case "groups":
		r = &groupsRender{a: groups.New(), w: out}
	case "legacy":
		r = legacyRender{d: legacy.New(), w: out}
	}

	in, err := source.OpenContext(ctx, name, s.in)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer in.Close()
	// The progress display, when there is one, ends before render returns.
	finish := func() {}
	defer func() { finish() }()
	wrap := func(r io.Reader) io.Reader {
		r, finish = withProgress(r, progressTo(s, true), in.Path)
		return r
	}
	src, err := in.Events(source.EventsOptions{Provider: o.provider, Warn: s.err, Wrap: wrap})
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	var last time.Time
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		at, e, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		last = at
		if err := r.render(at, e); err != nil {
			return fmt.Errorf("render %s: %w", name, err)
		}
	}
	if err := r.close(last); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if sent != nil {
		fmt.Fprintf(s.err, "evcap: %d operation(s) delivered to %s\n", sent.applied, o.room)
		if b := sent.d.Broken(); b != nil {
			fmt.Fprintf(s.err, "evcap: the server refused an edit (%v); the final answer was sent as a new message\n", b)
		}
	}
	if bad := src.Invalid(); bad > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%s: %d invalid record(s) skipped", name, bad)}
	}
	return nil
}

// termOptions turns --color, --width, NO_COLOR, GITHUB_ACTIONS and whether
// stdout is a terminal into the renderer's options, once, here in cmd.
func termOptions(s streams, o renderOptions, widthSet bool) (term.Options, error) {
	f, isFile := s.out.(*os.File)
	tty := isFile && isTerminal(f)
	color, err := term.ColorEnabled(term.ColorMode(o.color), os.Getenv, tty)
	if err != nil {
		return term.Options{}, fmt.Errorf("--color: %w", err)
	}
	width := o.width
	if !widthSet && tty {
		width = terminalWidth(f)
	}
	return term.Options{Color: color, Width: width, GitHubActions: os.Getenv("GITHUB_ACTIONS") == "true"}, nil
}

type termRender struct{ r *term.Renderer }

func (t termRender) render(_ time.Time, e event.Event) error { return t.r.Render(e) }
func (t termRender) close(time.Time) error                   { return t.r.Close() }

type chatRender struct {
	m *chat.Message
	w io.Writer
}

func (c chatRender) render(at time.Time, e event.Event) error {
	return chat.WriteJSONL(c.w, c.m.Handle(at, e))
}
func (c chatRender) close(at time.Time) error { return chat.WriteJSONL(c.w, c.m.Close(at)) }

// matrixRender applies the chat operations to a Matrix room as they come.
type matrixRender struct {
	ctx     context.Context
	m       *chat.Message
	d       *chat.Delivery
	applied int
}

func (mr *matrixRender) apply(ops []chat.Op) error {
	for _, op := range ops {
		if err := mr.d.Apply(mr.ctx, op); err != nil {
			return err
		}
		mr.applied++
	}
	return nil
}

func (mr *matrixRender) render(at time.Time, e event.Event) error {
	return mr.apply(mr.m.Handle(at, e))
}
func (mr *matrixRender) close(at time.Time) error { return mr.apply(mr.m.Close(at)) }

type groupsRender struct {
	a *groups.Accumulator
	w io.Writer
}

func (g *groupsRender) render(_ time.Time, e event.Event) error { g.a.Add(e); return nil }
func (g *groupsRender) close(time.Time) error                   { return g.a.Run().WriteJSON(g.w) }

type legacyRender struct {
	d *legacy.Deriver
	w io.Writer
}

func (l legacyRender) render(_ time.Time, e event.Event) error { return l.write(l.d.Event(e)) }
func (l legacyRender) close(time.Time) error                   { return l.write(l.d.End()) }

func (l legacyRender) write(ms []legacy.Marker) error {
	for _, m := range ms {
		if _, err := io.WriteString(l.w, m.Line+"\n"); err != nil {
			return err
		}
	}
	return nil
}
