package term

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/evcap/evcap/event"
)

// Options decide how the output looks. The zero value is plain text without
// wrapping, as wanted for a file or a pipe.
type Options struct {
	// Color turns on ANSI SGR styling (16-colour palette, so it looks the
	// same in every terminal and in CI logs). cmd decides it with
	// ColorEnabled.
	Color bool
	// Width wraps streamed text and long lines at word boundaries to this
	// many columns; 0 means no wrapping.
	Width int
	// GitHubActions adds a ::notice:: annotation per tool use and an
	// ::error:: annotation per fatal error, and guards every line against
	// injected workflow commands. cmd sets it when GITHUB_ACTIONS=true.
	GitHubActions bool
}

// TokenStep is the running-total interval at which a usage line is printed.
const TokenStep = 5000

type blockKind uint8

const (
	blockThinking blockKind = iota + 1
	blockText
)

// openBlock is the streamed block currently being written.
type openBlock struct {
	kind blockKind
	key  string // messageId/partId of the block
}

// shown is what was streamed for one block, so its completed event can be
// reconciled without printing the text twice.
type shown struct {
	text strings.Builder
}

// Renderer writes events as terminal text. It is not safe for concurrent
// use. Call Close at the end so a half-written block gets its newline.
type Renderer struct {
	w    io.Writer
	opts Options
	out  bytes.Buffer
	err  error

	styles styles
	clean  cleaner
	wrap   wrapper
	guard  cmdGuard

	cur       *openBlock
	lineStart bool   // the last byte written was a newline (or nothing yet)
	openStyle string // the SGR sequence in force, "" when reset

	streamed  map[string]*shown // "kind\x00key" → text streamed for it
	lastDelta [3]string         // per blockKind: streamed key of the latest delta
	tools     map[string]bool   // tool call ids already printed
	lastInit  string

	// depth is the nesting of the event being rendered: 0 for the main
	// agent, 1 for a subagent's work, more for a subagent's subagent.
	// toolDepth remembers the depth of each tool call, so that the work
	// of the subagent it started goes one level deeper; agentDone keeps a
	// subagent's end from being printed twice.
	depth     int
	toolDepth map[string]int
	agentDone map[string]bool
	// unshown holds the tool of each call seen but not printed yet.
	unshown map[string]event.Tool

	usage        event.Usage            // running totals
	perCall      map[string]event.Usage // latest usage per model call (message id)
	usageSeen    bool
	printedSteps int64
	fatalNoted   bool // a fatal error was reported: a failed result needs no second ::error::
}

// New returns a Renderer writing to w.
func New(w io.Writer, opts Options) *Renderer {
	return &Renderer{
		w:         w,
		opts:      opts,
		styles:    newStyles(opts.Color),
		wrap:      wrapper{width: opts.Width},
		lineStart: true,
		streamed:  map[string]*shown{},
		tools:     map[string]bool{},
		perCall:   map[string]event.Usage{},
		toolDepth: map[string]int{},
		agentDone: map[string]bool{},
		unshown:   map[string]event.Tool{},
	}
}

// Render writes what e shows. Unknown and status events show nothing. The
// first write error is returned and then returned again by every later call.
func (r *Renderer) Render(e event.Event) error {
	if r.err != nil {
		return r.err
	}
	r.nestAt(e)
	switch e.Kind {
	case event.KindInit:
		r.init(e)
	case event.KindThinking:
		r.stream(blockThinking, e)
	case event.KindText:
		r.stream(blockText, e)
	case event.KindTool:
		r.tool(e)
	case event.KindToolResult:
		r.toolResult(e)
	case event.KindUsage:
		r.usageLine(e)
	case event.KindRetry:
		r.retry(e)
	case event.KindError:
		r.failure(e)
	case event.KindResult:
		r.result(e)
	case event.KindPermission:
		r.permission(e)
	case event.KindAgent:
		r.agent(e)
	case event.KindHook:
		r.hook(e)
	case event.KindRateLimit:
		r.rateLimit(e)
	}
	return r.flush()
}

// Close ends the open block, if any. It does not close the writer.
func (r *Renderer) Close() error {
	if r.err != nil {
		return r.err
	}
	r.closeBlock()
	r.resetStyle()
	return r.flush()
}

func (r *Renderer) flush() error {
	if r.out.Len() == 0 {
		return nil
	}
	_, err := r.w.Write(r.out.Bytes())
	r.out.Reset()
	if err != nil {
		r.err = fmt.Errorf("term renderer: write: %w", err)
	}
	return r.err
}

func blockKey(e event.Event) string { return e.MessageID + "\x00" + e.PartID }

func streamKey(k blockKind, key string) string { return string(rune('0'+k)) + "\x00" + key }

// stream handles thinking and text events, the only ones that stream.
func (r *Renderer) stream(k blockKind, e event.Event) {
	key := blockKey(e)
	sk := streamKey(k, key)
	switch e.Phase {
	case event.PhaseStarted:
		r.ensureBlock(k, key)
		if e.Text != "" {
			r.streamText(k, key, sk, e.Text)
		}
	case event.PhaseDelta, event.PhaseUpdated:
		if e.Text == "" {
			return
		}
		r.streamText(k, key, sk, e.Text)
	case event.PhaseCompleted, event.PhaseFailed:
		r.complete(k, key, sk, e.Text)
	}
}

func (r *Renderer) streamText(k blockKind, key, sk, text string) {
	r.ensureBlock(k, key)
	s := r.streamed[sk]
	if s == nil {
		s = &shown{}
		r.streamed[sk] = s
	}
	s.text.WriteString(text)
	r.lastDelta[k] = sk
	r.writeBlockText(text)
}

// complete reconciles a completed block with what its deltas showed: only
// text the deltas did not show is printed. When the completed event's ids do
// not match any streamed block (some providers give deltas and the final
// block different ids), the latest streamed block of the same kind counts
// as the same block if the completed text extends it.
func (r *Renderer) complete(k blockKind, key, sk, full string) {
	s := r.streamed[sk]
	if s == nil && r.lastDelta[k] != "" {
		if cand := r.streamed[r.lastDelta[k]]; cand != nil && strings.HasPrefix(full, cand.text.String()) {
			s, sk = cand, r.lastDelta[k]
		}
	}
	rest := full
	if s != nil {
		delete(r.streamed, sk)
		if r.lastDelta[k] == sk {
			r.lastDelta[k] = ""
		}
		rest = ""
		if prev := s.text.String(); strings.HasPrefix(full, prev) {
			rest = full[len(prev):]
		}
	}
	if rest != "" {
		r.ensureBlock(k, key)
		r.writeBlockText(rest)
	}
	if r.cur != nil && r.cur.kind == k {
		r.closeBlock()
	}
}

// ensureBlock makes (k, key) the open block, closing another one first.
func (r *Renderer) ensureBlock(k blockKind, key string) {
	if r.cur != nil && r.cur.kind == k && r.cur.key == key {
		return
	}
	r.closeBlock()
	r.cur = &openBlock{kind: k, key: key}
	r.clean.reset()
	r.wrap.reset(0)
	if k == blockThinking {
		r.emit("∴ Thinking", r.styles.thinkingHead)
		r.emit("\n", r.styles.thinkingHead)
	}
}

func (r *Renderer) blockStyle() style {
	if r.cur != nil && r.cur.kind == blockThinking {
		return r.styles.thinking
	}
	return r.styles.text
}

func (r *Renderer) writeBlockText(text string) {
	r.emit(r.wrap.write(r.clean.clean(text)), r.blockStyle())
}

// closeBlock ends the open streamed block: held-back text is written and the
// line is ended, so whatever comes next starts on a fresh line.
func (r *Renderer) closeBlock() {
	if r.cur != nil {
		st := r.blockStyle()
		r.emit(r.wrap.flush(), st)
		r.cur = nil
	}
	if r.opts.GitHubActions {
		r.emitRaw(r.guard.release(), r.styles.text)
	}
	if !r.lineStart {
		r.emit("\n", r.styles.text)
	}
	r.resetStyle()
}

// line writes a one-line item (wrapped if Width is set), after closing the
// open block. text must already be clean.
func (r *Renderer) line(text string, st style) {
	r.closeBlock()
	r.wrap.reset(0)
	r.emit(r.wrap.write(text)+r.wrap.flush(), st)
	if r.opts.GitHubActions {
		r.emitRaw(r.guard.release(), st)
	}
	r.emit("\n", st)
}

// annotate writes a workflow command line, at the start of a line.
func (r *Renderer) annotate(cmd, data string) {
	if !r.opts.GitHubActions {
		return
	}
	r.closeBlock()
	r.out.WriteString(annotation(cmd, data))
	r.lineStart = true
}

// emit writes clean text, guarded against workflow commands in GitHub
// Actions mode, styled per line segment so no style spans a newline.
func (r *Renderer) emit(s string, st style) {
	if r.opts.GitHubActions {
		s = r.guard.filter(s)
	}
	r.emitRaw(s, st)
}

func (r *Renderer) emitRaw(s string, st style) {
	for s != "" {
		seg, rest, nl := strings.Cut(s, "\n")
		if seg != "" {
			if r.lineStart {
				r.writeIndent()
			}
			if r.openStyle != st.open {
				r.resetStyle()
				r.out.WriteString(st.open)
				r.openStyle = st.open
			}
			r.out.WriteString(seg)
			r.lineStart = false
		}
		if nl {
			if r.lineStart {
				r.writeIndent()
			}
			r.resetStyle()
			r.out.WriteByte('\n')
			r.lineStart = true
		}
		s = rest
	}
}

func (r *Renderer) resetStyle() {
	if r.openStyle != "" {
		r.out.WriteString(sgrReset)
		r.openStyle = ""
	}
}
