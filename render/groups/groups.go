package groups

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/evcap/evcap/event"
)

// Block types.
const (
	TypeThinking = "thinking"
	TypeText     = "text"
	TypeTool     = "tool"
)

// Tool statuses. A tool is pending while its call is being written,
// running once the call is complete, and completed or failed when its
// result arrives.
const (
	StatusPending   = "pending"
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
)

// ExcerptLen is how many characters of a tool's output a block keeps.
const ExcerptLen = 200

// Run is the whole folded state, in JSON key order.
type Run struct {
	Session  *Session      `json:"session,omitempty"`
	Messages []*Message    `json:"messages"`
	Usage    *Usage        `json:"usage,omitempty"`
	Retries  int           `json:"retries,omitempty"`
	Errors   []event.Error `json:"errors,omitempty"`
	Result   *event.Result `json:"result,omitempty"`
}

// Session is what init events told.
type Session struct {
	ID      string `json:"id,omitempty"`
	Model   string `json:"model,omitempty"`
	Version string `json:"version,omitempty"`
}

// Message is one assistant message ("" ID for events that carried none
// before any message was known).
type Message struct {
	ID     string   `json:"id"`
	Blocks []*Block `json:"blocks"`
}

// Block is one thing a message shows.
type Block struct {
	Type string `json:"type"`
	// ID is the part id (thinking, text) or the tool call id.
	ID string `json:"id,omitempty"`
	// Text is the full text of a thinking or text block.
	Text string `json:"text,omitempty"`
	// Deltas counts the delta events that built Text.
	Deltas int `json:"deltas,omitempty"`
	// Completed is set when the block's completed event arrived.
	Completed bool `json:"completed"`
	// Mismatch is set when the completed text differs from the
	// concatenated deltas (Text then holds the completed text).
	Mismatch bool  `json:"mismatch,omitempty"`
	Tool     *Tool `json:"tool,omitempty"`

	streamed strings.Builder // concatenated deltas
}

// Tool is the tool call of a tool block.
type Tool struct {
	Name        string `json:"name"`
	Summary     string `json:"summary"`
	Status      string `json:"status"`
	Result      string `json:"result,omitempty"`
	ResultBytes int    `json:"resultBytes,omitempty"`
	// Subagent is the work of the subagent this tool call started, with
	// its own messages, nested here rather than among the run's messages.
	Subagent *Subagent `json:"subagent,omitempty"`
}

// Subagent is a subagent's identity, its last reported status and the
// messages of its work, grouped like the run's own.
type Subagent struct {
	ID          string     `json:"id,omitempty"`
	Name        string     `json:"name,omitempty"`
	Description string     `json:"description,omitempty"`
	Status      string     `json:"status,omitempty"`
	Messages    []*Message `json:"messages"`
}

// Usage is the latest token totals of the run.
type Usage struct {
	InputTokens      int64 `json:"inputTokens"`
	OutputTokens     int64 `json:"outputTokens"`
	CacheReadTokens  int64 `json:"cacheReadTokens"`
	CacheWriteTokens int64 `json:"cacheWriteTokens"`
	ReasoningTokens  int64 `json:"reasoningTokens"`
	Total            int64 `json:"total"`
}

// Accumulator folds events into a Run. It is not safe for concurrent use.
type Accumulator struct {
	run Run
	// root is the main agent's scope; scopes holds each subagent's, by
	// the id of the tool call that started it.
	root   *scope
	scopes map[string]*scope
	// sc is the scope of the event being added.
	sc      *scope
	tools   map[string]*Block
	usage   event.Usage
	perCall map[string]event.Usage
}

// New returns an empty Accumulator.
func New() *Accumulator {
	a := &Accumulator{
		run:     Run{Messages: []*Message{}},
		scopes:  map[string]*scope{},
		tools:   map[string]*Block{},
		perCall: map[string]event.Usage{},
	}
	a.root = &scope{byID: map[string]*Message{}, msgs: &a.run.Messages}
	a.sc = a.root
	return a
}

// scope is where one agent's messages go: the run's list for the main
// agent, a tool block's Subagent for a subagent.
type scope struct {
	byID map[string]*Message
	cur  *Message
	msgs *[]*Message
}

// scopeOf returns the scope of e: the main agent's, or that of the
// subagent started by e.ParentToolCallID (made on first sight, with a
// placeholder tool block if the call itself was never seen).
func (a *Accumulator) scopeOf(e event.Event) *scope {
	parent := e.ParentToolCallID
	if parent == "" {
		return a.root
	}
	if sc, ok := a.scopes[parent]; ok {
		return sc
	}
	b := a.tools[parent]
	if b == nil {
		a.sc = a.root
		m := a.message("")
		b = &Block{Type: TypeTool, ID: parent, Tool: &Tool{Status: StatusPending}}
		m.Blocks = append(m.Blocks, b)
		a.tools[parent] = b
	}
	if b.Tool.Subagent == nil {
		b.Tool.Subagent = &Subagent{Messages: []*Message{}}
	}
	sc := &scope{byID: map[string]*Message{}, msgs: &b.Tool.Subagent.Messages}
	a.scopes[parent] = sc
	return sc
}

// agent records a subagent's identity and status on the tool call that
// started it.
func (a *Accumulator) agent(e event.Event) {
	if e.ParentToolCallID == "" || e.Agent == nil {
		return
	}
	a.scopeOf(e)
	sa := a.tools[e.ParentToolCallID].Tool.Subagent
	sa.ID = first(e.Agent.ID, sa.ID)
	sa.Name = first(e.Agent.Name, sa.Name)
	if e.Phase == event.PhaseStarted || sa.Description == "" {
		sa.Description = first(e.Agent.Description, sa.Description)
	}
	sa.Status = first(e.Agent.Status, sa.Status)
}

// Run returns the folded state so far. It shares memory with the
// Accumulator: it is valid until the next Add.
func (a *Accumulator) Run() *Run { return &a.run }

// Add folds one event in.
func (a *Accumulator) Add(e event.Event) {
	if e.Kind == event.KindAgent {
		a.agent(e)
		return
	}
	a.sc = a.scopeOf(e)
	switch e.Kind {
	case event.KindInit:
		s := a.run.Session
		if s == nil {
			s = &Session{}
			a.run.Session = s
		}
		s.ID = first(e.SessionID, s.ID)
		s.Model = first(e.Model, s.Model)
		s.Version = first(e.Version, s.Version)
	case event.KindThinking:
		a.stream(TypeThinking, e)
	case event.KindText:
		a.stream(TypeText, e)
	case event.KindTool:
		a.tool(e)
	case event.KindToolResult:
		a.toolResult(e)
	case event.KindUsage:
		a.addUsage(e)
	case event.KindRetry:
		a.run.Retries++
	case event.KindError:
		if e.Error != nil {
			a.run.Errors = append(a.run.Errors, *e.Error)
		}
	case event.KindResult:
		r := event.Result{IsError: e.Phase == event.PhaseFailed}
		if e.Result != nil {
			r = *e.Result
			r.IsError = r.IsError || e.Phase == event.PhaseFailed
		}
		a.run.Result = &r
	}
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// message returns the message an event belongs to.
func (a *Accumulator) message(id string) *Message {
	sc := a.sc
	if id == "" {
		if sc.cur == nil {
			sc.cur = sc.newMessage("")
		}
		return sc.cur
	}
	m := sc.byID[id]
	if m == nil {
		if sc.cur != nil && sc.cur.ID == "" && len(sc.cur.Blocks) == 0 {
			sc.cur.ID = id // an empty placeholder takes the first real id
			m = sc.cur
		} else {
			m = sc.newMessage(id)
		}
		sc.byID[id] = m
	}
	sc.cur = m
	return m
}

func (sc *scope) newMessage(id string) *Message {
	m := &Message{ID: id, Blocks: []*Block{}}
	*sc.msgs = append(*sc.msgs, m)
	return m
}

// open finds the not yet completed block of type typ and part id in m: any
// such block for a non-empty id, only the last block for an empty id.
func open(m *Message, typ, id string) *Block {
	if id == "" {
		if n := len(m.Blocks); n > 0 {
			if b := m.Blocks[n-1]; b.Type == typ && b.ID == "" && !b.Completed {
				return b
			}
		}
		return nil
	}
	for i := len(m.Blocks) - 1; i >= 0; i-- {
		if b := m.Blocks[i]; b.Type == typ && b.ID == id && !b.Completed {
			return b
		}
	}
	return nil
}

func (a *Accumulator) stream(typ string, e event.Event) {
	m := a.message(e.MessageID)
	b := open(m, typ, e.PartID)
	if b == nil {
		if e.Phase == event.PhaseDelta && e.Text == "" {
			return
		}
		b = &Block{Type: typ, ID: e.PartID}
		m.Blocks = append(m.Blocks, b)
	}
	switch e.Phase {
	case event.PhaseDelta, event.PhaseUpdated:
		if e.Text == "" {
			return
		}
		b.streamed.WriteString(e.Text)
		b.Deltas++
		b.Text = b.streamed.String()
	case event.PhaseCompleted, event.PhaseFailed:
		if b.Deltas > 0 && b.streamed.String() != e.Text {
			b.Mismatch = true
		}
		b.Text = e.Text
		b.Completed = true
	}
}

func (a *Accumulator) tool(e event.Event) {
	b := a.tools[e.ToolCallID]
	if b == nil || e.ToolCallID == "" {
		m := a.message(e.MessageID)
		b = &Block{Type: TypeTool, ID: e.ToolCallID, Tool: &Tool{Status: StatusPending}}
		m.Blocks = append(m.Blocks, b)
		if e.ToolCallID != "" {
			a.tools[e.ToolCallID] = b
		}
	}
	if e.Tool != nil {
		b.Tool.Name = first(e.Tool.Name, b.Tool.Name)
		b.Tool.Summary = first(e.Tool.Summary, b.Tool.Summary)
	}
	t := b.Tool
	if t.Status == StatusCompleted || t.Status == StatusFailed {
		return // the result is in; a late call event does not undo it
	}
	switch e.Phase {
	case event.PhaseStarted:
		t.Status = StatusPending
	case event.PhaseUpdated, event.PhaseCompleted:
		t.Status = StatusRunning
		b.Completed = e.Phase == event.PhaseCompleted
	case event.PhaseFailed:
		t.Status = StatusFailed
		b.Completed = true
	}
}

func (a *Accumulator) toolResult(e event.Event) {
	b := a.tools[e.ToolCallID]
	if b == nil {
		// a result without a known call: keep it visible
		b = &Block{Type: TypeTool, ID: e.ToolCallID, Tool: &Tool{}}
		m := a.message("")
		m.Blocks = append(m.Blocks, b)
		if e.ToolCallID != "" {
			a.tools[e.ToolCallID] = b
		}
	}
	t := b.Tool
	t.Status = StatusCompleted
	if e.Phase == event.PhaseFailed || (e.ToolResult != nil && e.ToolResult.IsError) {
		t.Status = StatusFailed
	}
	if e.ToolResult != nil {
		t.Result = excerpt(e.ToolResult.Output, ExcerptLen)
		t.ResultBytes = e.ToolResult.OutputBytes
	}
}

// excerpt keeps the first n characters of s, marking a cut with "…".
func excerpt(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos] + "…"
		}
		i++
	}
	return s
}

// addUsage keeps the latest totals: cumulative figures replace, reports
// for the same model call (message id) replace that call's earlier report,
// other reports add up.
func (a *Accumulator) addUsage(e event.Event) {
	u := e.Usage
	if u == nil {
		return
	}
	switch {
	case u.Cumulative:
		a.usage = *u
	case e.MessageID != "":
		a.usage = sum(sum(a.usage, a.perCall[e.MessageID], -1), *u, 1)
		a.perCall[e.MessageID] = *u
	default:
		a.usage = sum(a.usage, *u, 1)
	}
	a.run.Usage = &Usage{
		InputTokens: a.usage.InputTokens, OutputTokens: a.usage.OutputTokens,
		CacheReadTokens: a.usage.CacheReadTokens, CacheWriteTokens: a.usage.CacheWriteTokens,
		ReasoningTokens: a.usage.ReasoningTokens, Total: a.usage.Total(),
	}
}

func sum(a, b event.Usage, sign int64) event.Usage {
	a.InputTokens += sign * b.InputTokens
	a.OutputTokens += sign * b.OutputTokens
	a.CacheReadTokens += sign * b.CacheReadTokens
	a.CacheWriteTokens += sign * b.CacheWriteTokens
	a.ReasoningTokens += sign * b.ReasoningTokens
	return a
}

// WriteJSON writes the run as indented JSON (two spaces, keys in the
// fixed order of the types, HTML characters not escaped) and a newline.
func (r *Run) WriteJSON(w io.Writer) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("groups: encode run: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("groups: write run: %w", err)
	}
	return nil
}
