package chat

import (
	"strings"
	"time"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/toolicon"
)

// Defaults for Options.
const (
	DefaultInterval   = time.Second
	DefaultMaxSummary = 80
	// WorkingText is the first message of every run.
	WorkingText = "⏳ Working…"
)

// Options tune a Message. The zero value gives the defaults.
type Options struct {
	// Interval is the least time between two edits (default 1 s).
	Interval time.Duration
	// MaxSummary caps a tool summary, in characters (default 80).
	MaxSummary int
}

// textBlock is one text block of the answer being written.
type textBlock struct {
	msgID     string
	key       string
	text      strings.Builder
	completed bool
}

// Message folds events into operations on one chat message. It is not
// safe for concurrent use. Times passed to Handle, Tick and Close must not
// go backwards.
type Message struct {
	opts Options

	started  bool
	start    time.Time
	closed   bool
	shown    string // text of the message as last sent or edited
	edited   bool
	lastEdit time.Time
	pending  string
	waiting  bool // pending holds a state not shown yet

	tools map[string]bool // tool call ids already shown
	// toolLine is the status shown for each tool call, so that a
	// subagent's status can show the call it works under; toolDepth is
	// each call's nesting (0 for the main agent's).
	toolLine  map[string]string
	toolDepth map[string]int
	toolName  map[string]string // name of every tool call seen, shown or not

	answer   []*textBlock // text written since the last tool call
	lastText string       // the answer before the last tool call, as a fallback

	result    *event.Result
	resultBad bool
	fatal     string // message of the last fatal error
}

// New returns a Message with opts (zero fields take their defaults).
func New(opts Options) *Message {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.MaxSummary <= 0 {
		opts.MaxSummary = DefaultMaxSummary
	}
	return &Message{opts: opts, tools: map[string]bool{}, toolLine: map[string]string{}, toolDepth: map[string]int{}, toolName: map[string]string{}}
}

// Handle takes one event that happened at at and returns the operations due
// by then: the first send, and the edit showing the newest state if the
// rate limit allows one now (the state this event brings, or one that was
// waiting).
func (m *Message) Handle(at time.Time, e event.Event) []Op {
	if m.closed {
		return nil
	}
	var ops []Op
	if !m.started {
		ops = append(ops, m.begin(at))
	}
	switch e.Kind {
	case event.KindTool:
		if e.Tool != nil && e.ToolCallID != "" && e.Tool.Name != "" {
			m.toolName[e.ToolCallID] = oneLine(e.Tool.Name)
		}
		if status, ok := m.toolStatus(e); ok {
			if e.ParentToolCallID == "" {
				m.endAnswer()
			}
			ops = m.update(ops, at, m.nested(e, status))
		}
	case event.KindAgent:
		if e.Phase == event.PhaseStarted && e.Agent != nil && e.ParentToolCallID != "" {
			status := "🧩 " + oneLine(e.Agent.Name)
			if d := oneLine(e.Agent.Description); d != "" {
				status += ": " + clip(d, m.opts.MaxSummary)
			}
			ops = m.update(ops, at, m.nested(e, status))
		}
	case event.KindText:
		switch {
		case e.ParentToolCallID != "":
			// A subagent's text is its report to the main agent, not
			// the answer.
		case e.MessagePhase == event.MessagePhaseCommentary:
			// Said along the way; kept only in case no answer follows.
			if e.Phase == event.PhaseCompleted && strings.TrimSpace(e.Text) != "" {
				m.lastText = e.Text
			}
		default:
			m.text(e)
		}
	case event.KindError:
		if e.Error == nil {
			break
		}
		msg := clip(oneLine(e.Error.Message), 200)
		if e.Error.Fatal {
			m.fatal = msg
			ops = m.update(ops, at, "❌ Error: "+msg)
		} else {
			ops = m.update(ops, at, "⚠️ Warning: "+msg)
		}
	case event.KindResult:
		if e.Result != nil {
			r := *e.Result
			m.result = &r
		}
		m.resultBad = e.Phase == event.PhaseFailed || (e.Result != nil && e.Result.IsError)
	}
	// A state that waited and is due now goes out, unless this event
	// already replaced it with a newer one (the latest wins).
	return append(ops, m.Tick(at)...)
}

// Tick returns the waiting edit if its interval has passed by at. A live
// driver calls it on a timer so a state is not held back until the next
// event; replays need not call it.
func (m *Message) Tick(at time.Time) []Op {
	if m.closed || !m.waiting || at.Sub(m.lastEdit) < m.opts.Interval {
		return nil
	}
	return []Op{m.edit(at, m.pending)}
}

// Close ends the run at at and returns the final answer: an edit (or, if
// nothing was sent yet, a send) marked Final. A waiting state is dropped,
// since the final answer replaces it. If the last edit was less than an
// interval ago, the final Op is due when the interval ends.
func (m *Message) Close(at time.Time) []Op {
	if m.closed {
		return nil
	}
	m.closed = true
	final := m.finalText()
	if !m.started {
		m.started, m.start = true, at
		return []Op{{Kind: OpSend, At: 0, Time: at, Text: final, Final: true}}
	}
	if m.edited && at.Sub(m.lastEdit) < m.opts.Interval {
		at = m.lastEdit.Add(m.opts.Interval)
	}
	op := m.edit(at, final)
	op.Final = true
	return []Op{op}
}

func (m *Message) begin(at time.Time) Op {
	m.started, m.start, m.shown = true, at, WorkingText
	return Op{Kind: OpSend, At: 0, Time: at, Text: WorkingText}
}

// update asks for the message to show text: now if the rate limit allows,
// otherwise as the waiting state (the latest one wins).
func (m *Message) update(ops []Op, at time.Time, text string) []Op {
	if text == m.shown && !m.waiting {
		return ops
	}
	if !m.edited || at.Sub(m.lastEdit) >= m.opts.Interval {
		return append(ops, m.edit(at, text))
	}
	m.pending, m.waiting = text, true
	return ops
}

func (m *Message) edit(at time.Time, text string) Op {
	m.edited, m.lastEdit, m.shown = true, at, text
	m.pending, m.waiting = "", false
	return Op{Kind: OpEdit, At: at.Sub(m.start), Time: at, Text: text}
}

// toolStatus returns the status line of a tool call the first time the
// call has a summary (or completes). Tool.Input is never looked at.
func (m *Message) toolStatus(e event.Event) (string, bool) {
	if e.Tool == nil {
		return "", false
	}
	summary := oneLine(e.Tool.Summary)
	if e.ToolCallID == "" {
		if e.Phase != event.PhaseCompleted {
			return "", false
		}
	} else {
		if m.tools[e.ToolCallID] || (summary == "" && e.Phase != event.PhaseCompleted) {
			return "", false
		}
		m.tools[e.ToolCallID] = true
	}
	name := oneLine(e.Tool.Name)
	if name == "" {
		name = "tool"
	}
	status := toolicon.For(name) + " " + name
	if summary != "" {
		status += ": " + clip(summary, m.opts.MaxSummary)
	}
	return status, true
}

// nested returns status as shown under the tool calls that e's subagent
// works for: each parent's status line, then this one indented one step
// per level. It records the line of a tool call for its own subagent.
func (m *Message) nested(e event.Event, status string) string {
	depth := 0
	line := status
	if p := e.ParentToolCallID; p != "" {
		depth = m.toolDepth[p] + 1
		parent := m.toolLine[p]
		if parent == "" && m.toolName[p] != "" {
			// The call that started the subagent was not shown yet (its
			// summary comes later): its name stands for it.
			parent = toolicon.For(m.toolName[p]) + " " + m.toolName[p]
		}
		line = strings.Repeat("  ", depth-1) + "↳ " + status
		if parent != "" {
			line = parent + "\n" + line
		}
	}
	if e.Kind == event.KindTool && e.ToolCallID != "" {
		m.toolLine[e.ToolCallID], m.toolDepth[e.ToolCallID] = line, depth
	}
	return line
}

// text collects the answer. Deltas append to their block, a completed
// event replaces the block's text with the whole text.
func (m *Message) text(e event.Event) {
	key := e.MessageID + "\x00" + e.PartID
	var b *textBlock
	if n := len(m.answer); n > 0 && m.answer[n-1].key == key && !m.answer[n-1].completed {
		b = m.answer[n-1]
	}
	switch e.Phase {
	case event.PhaseCompleted:
		if b == nil {
			if e.Text == "" {
				return
			}
			b = &textBlock{msgID: e.MessageID, key: key}
			m.answer = append(m.answer, b)
		}
		b.text.Reset()
		b.text.WriteString(e.Text)
		b.completed = true
	default:
		if e.Text == "" {
			return
		}
		if b == nil {
			b = &textBlock{msgID: e.MessageID, key: key}
			m.answer = append(m.answer, b)
		}
		b.text.WriteString(e.Text)
	}
}

// endAnswer starts a new answer at a tool call: text before a tool is
// commentary ("Let me look at the files."), not the final answer.
func (m *Message) endAnswer() {
	if a := m.answerText(); a != "" {
		m.lastText = a
	}
	m.answer = nil
}

// answerText joins the answer's text blocks that belong to the same
// message as the last one: a provider may report a message's commentary
// after the tool call it announced (opencode closes text parts at the end
// of a step), and that commentary is not part of the next message's answer.
func (m *Message) answerText() string {
	if len(m.answer) == 0 {
		return ""
	}
	last := m.answer[len(m.answer)-1].msgID
	var parts []string
	for _, b := range m.answer {
		if b.msgID != last {
			continue
		}
		if t := strings.TrimSpace(b.text.String()); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

// finalText is the final answer: on failure the error; otherwise the text
// written after the last tool call, else the result text, else the last
// text seen at all.
func (m *Message) finalText() string {
	failed := m.resultBad || (m.result == nil && m.fatal != "")
	if failed {
		switch {
		case m.fatal != "":
			return "❌ Error: " + m.fatal
		case m.result != nil && strings.TrimSpace(m.result.Text) != "":
			return "❌ Error: " + clean(strings.TrimSpace(m.result.Text))
		case m.result != nil && m.result.Subtype != "":
			return "❌ Error: the run failed (" + oneLine(m.result.Subtype) + ")"
		default:
			return "❌ Error: the run failed"
		}
	}
	if a := m.answerText(); a != "" {
		return clean(a)
	}
	if m.result != nil && strings.TrimSpace(m.result.Text) != "" {
		return clean(strings.TrimSpace(m.result.Text))
	}
	if m.lastText != "" {
		return clean(m.lastText)
	}
	return "✅ Done."
}
