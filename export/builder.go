package export

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/tidwall/gjson"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/providers"
)

// Options say what a Builder puts into spans.
type Options struct {
	// Content adds text content to spans: the answer text of each chat
	// span, tool arguments and results. Off by default; the text is what
	// the capture holds (redacted at record time, sanitized when the
	// capture was).
	Content bool
	// File names the capture in the root span (evcap.capture.file), so a
	// trace leads to its file; empty leaves the attribute out.
	File string
	// Base anchors the times of records that carry no timestamp (fixtures
	// keep none): such a record is placed at Base plus its sequence number
	// in milliseconds, and the root span says evcap.timing.synthetic. A
	// sanitized capture's offsets ("+1.250s") are placed after Base, and
	// the root says evcap.timing.relative.
	Base time.Time
}

// Builder folds a capture's records, in sequence order, into finished
// spans. Each span is handed to emit as soon as it is complete (a tool
// call when its result arrives, a chat turn when its usage arrives, the
// root at Close), so a Builder serves a recording in progress as well as a
// whole file. Memory is bounded by the spans open at one time.
type Builder struct {
	opts Options
	emit func(*Span)

	captureID string
	identity  string // see Identity
	trace     trace.TraceID
	root      *Span
	rootOpen  bool
	provider  string
	cliName   string
	cliVer    string
	model     string
	session   string
	synthetic bool
	relative  bool
	last      time.Time
	lastSeq   int64

	// chats holds the open chat span per agent ("" is the main agent,
	// else the parent tool call id of a subagent).
	chats map[string]*chatSpan
	// tools holds open tool spans by tool call id; agents the open
	// subagent spans by parent tool call id.
	tools      map[string]*Span
	agents     map[string]*Span
	agentsDone map[string]bool
	// lastCumulative is the previous cumulative usage per agent, to turn
	// running totals into per-turn figures.
	lastCumulative map[string]event.Usage
	// perMessage records the agents whose usage came per model message;
	// their cumulative totals then go to the root only.
	perMessage   map[string]bool
	total        *event.Usage
	exit         *int
	signal       string
	cleanEnd     *bool
	resultFailed bool
	resultMsg    string
	fatal        string
}

type chatSpan struct {
	span  *Span
	msgID string
	usage *event.Usage
	text  []byte
}

// NewBuilder returns a Builder that hands each finished span to emit.
func NewBuilder(opts Options, emit func(*Span)) *Builder {
	return &Builder{
		opts: opts, emit: emit,
		chats: map[string]*chatSpan{}, tools: map[string]*Span{}, agents: map[string]*Span{}, agentsDone: map[string]bool{},
		lastCumulative: map[string]event.Usage{}, perMessage: map[string]bool{},
	}
}

// Add folds one record into the trace. Records of any stage are accepted:
// meta records give the run's facts, normalized_out records its spans, and
// the others move the time and sequence range along.
func (b *Builder) Add(rec *envelope.Record) error {
	at := b.timeOf(rec)
	if b.root == nil {
		b.begin(rec, at)
	}
	if rec.Sequence > b.lastSeq {
		b.lastSeq = rec.Sequence
	}
	if at.After(b.last) {
		b.last = at
	}
	if b.session == "" && rec.SessionID != "" {
		b.session = rec.SessionID
	}
	switch {
	case rec.Stage == envelope.StageMeta && rec.EventType == envelope.EventCaptureStart:
		p := gjson.ParseBytes(rec.Payload)
		if v := p.Get("provider").String(); v != "" {
			b.provider = v
		}
		b.cliName = p.Get("cliName").String()
		b.cliVer = p.Get("cliVersion").String()
	case rec.Stage == envelope.StageMeta && rec.EventType == envelope.EventCaptureEnd:
		p := gjson.ParseBytes(rec.Payload)
		if v := p.Get("exitCode"); v.Type == gjson.Number {
			code := int(v.Int())
			b.exit = &code
		}
		b.signal = p.Get("signal").String()
		if v := p.Get("cleanEnd"); v.Exists() {
			clean := v.Bool()
			b.cleanEnd = &clean
		}
	case rec.Stage == envelope.StageNormalizedOut:
		var ev event.Event
		if err := json.Unmarshal(rec.Payload, &ev); err != nil {
			return fmt.Errorf("sequence %d: normalized event: %w", rec.Sequence, err)
		}
		b.event(&ev, rec.Sequence, at)
	}
	return nil
}

func (b *Builder) timeOf(rec *envelope.Record) time.Time {
	if ts := rec.Timestamp; ts != "" {
		if t, offset, err := envelope.ParseTimestamp(ts); err == nil && !offset {
			return t
		} else if err == nil {
			// A sanitized capture keeps offsets from its start
			// ("+1.250s"): the spacing is real, the start is Base.
			b.relative = true
			return b.opts.Base.Add(t.Sub(envelope.OffsetOrigin()))
		}
	}
	b.synthetic = true
	return b.opts.Base.Add(time.Duration(rec.Sequence) * time.Millisecond)
}

func (b *Builder) begin(rec *envelope.Record, at time.Time) {
	b.captureID = rec.CaptureID
	b.provider = rec.Provider
	b.identity = Identity(rec.CaptureID, rec.Provider, b.opts.File)
	b.trace = TraceIDFor(b.identity)
	b.root = &Span{
		Op: OpInvokeAgent, Trace: b.trace, ID: spanIDFor(b.identity, OpInvokeAgent, "root"),
		Start: at, FirstSeq: rec.Sequence,
	}
	b.rootOpen = true
	b.last = at
}

// event maps one normalized event onto the spans.
func (b *Builder) event(ev *event.Event, seq int64, at time.Time) {
	agent := ev.ParentToolCallID
	switch ev.Kind {
	case event.KindInit:
		if ev.Model != "" && agent == "" {
			b.model = ev.Model
		}
		if ev.SessionID != "" && b.session == "" {
			b.session = ev.SessionID
		}
		if ev.Version != "" && b.cliVer == "" {
			b.cliVer = ev.Version
		}
	case event.KindThinking, event.KindText:
		c := b.chatFor(agent, ev.MessageID, seq, at)
		if ev.Kind == event.KindText && ev.Phase == event.PhaseCompleted && b.opts.Content {
			c.text = append(c.text, ev.Text...)
		}
		c.span.LastSeq = seq
		c.span.End = at
		if ev.Model != "" {
			c.setModel(ev.Model)
		}
	case event.KindTool:
		b.toolCall(ev, seq, at)
	case event.KindToolResult:
		b.toolResult(ev, seq, at)
	case event.KindUsage:
		b.usage(ev, agent, seq, at)
	case event.KindResult:
		if ev.Result != nil {
			b.root.Attrs = append(b.root.Attrs, attribute.String(string(KeyResultSubtype), ev.Result.Subtype))
			if ev.Result.NumTurns > 0 {
				b.root.Attrs = append(b.root.Attrs, KeyNumTurns.Int(ev.Result.NumTurns))
			}
			if ev.Result.CostUSD > 0 {
				b.root.Attrs = append(b.root.Attrs, KeyCostUSD.Float64(ev.Result.CostUSD))
			}
			if ev.Result.IsError || ev.Phase == event.PhaseFailed {
				b.resultFailed = true
				b.resultMsg = "result " + ev.Result.Subtype
			}
		}
		for _, key := range sortedKeys(b.chats) {
			b.closeChat(key)
		}
	case event.KindError:
		attrs := []attribute.KeyValue{attribute.Bool("evcap.error.fatal", ev.Error != nil && ev.Error.Fatal)}
		msg := ""
		if ev.Error != nil {
			msg = ev.Error.Message
			attrs = append(attrs, semconv.ErrorTypeKey.String(orDefault(ev.Error.Type, "error")),
				attribute.String("error.message", ev.Error.Message))
			if ev.Error.Fatal {
				b.fatal = msg
			}
		}
		b.addEvent(agent, SpanEvent{Name: "error", Time: at, Attrs: seqAttr(attrs, seq)})
	case event.KindRetry:
		var attrs []attribute.KeyValue
		if r := ev.Retry; r != nil {
			attrs = append(attrs, attribute.Int("evcap.retry.attempt", r.Attempt),
				attribute.Int("evcap.retry.max", r.MaxRetries), attribute.Int64("evcap.retry.delay_ms", r.DelayMs),
				attribute.Int("http.response.status_code", r.Status), attribute.String("error.message", r.Error))
		}
		b.addEvent(agent, SpanEvent{Name: "retry", Time: at, Attrs: seqAttr(attrs, seq)})
	case event.KindRateLimit:
		var attrs []attribute.KeyValue
		if r := ev.RateLimit; r != nil {
			attrs = append(attrs, attribute.String("evcap.rate_limit.status", r.Status),
				attribute.String("evcap.rate_limit.type", r.Type), attribute.Int64("evcap.rate_limit.resets_at", r.ResetsAt),
				attribute.Float64("evcap.rate_limit.utilization", r.Utilization))
		}
		b.addEvent(agent, SpanEvent{Name: "rate_limit", Time: at, Attrs: seqAttr(attrs, seq)})
	case event.KindPermission:
		name := "permission.request"
		if ev.Phase == event.PhaseCompleted {
			name = "permission.reply"
		}
		var attrs []attribute.KeyValue
		if p := ev.Permission; p != nil {
			attrs = append(attrs, attribute.String("evcap.permission.id", p.ID),
				semconv.GenAIToolNameKey.String(p.Tool), attribute.String("evcap.permission.reply", p.Reply))
		}
		se := SpanEvent{Name: name, Time: at, Attrs: seqAttr(attrs, seq)}
		if s := b.tools[ev.ToolCallID]; ev.ToolCallID != "" && s != nil {
			s.Events = append(s.Events, se)
			return
		}
		b.addEvent(agent, se)
	case event.KindHook:
		var attrs []attribute.KeyValue
		if h := ev.Hook; h != nil {
			attrs = append(attrs, attribute.String("evcap.hook.name", h.Name), attribute.String("evcap.hook.event", h.Event),
				attribute.String("evcap.hook.outcome", h.Outcome))
		}
		b.addEvent(agent, SpanEvent{Name: "hook." + string(ev.Phase), Time: at, Attrs: seqAttr(attrs, seq)})
	case event.KindAgent:
		b.subagent(ev, seq, at)
	}
}

// sortedKeys gives a map's keys in order, so that spans closed together
// are emitted in the same order every time.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func seqAttr(attrs []attribute.KeyValue, seq int64) []attribute.KeyValue {
	return append(attrs, attribute.Int64("evcap.sequence", seq))
}

// parentOf is the span a subagent's work hangs under: its agent span when
// the provider reported one, else the tool call that started it, else the
// root.
func (b *Builder) parentOf(agent string) trace.SpanID {
	if agent == "" {
		return b.root.ID
	}
	if s := b.agents[agent]; s != nil {
		return s.ID
	}
	if s := b.tools[agent]; s != nil {
		return s.ID
	}
	return spanIDFor(b.identity, OpExecuteTool, agent)
}

// chatFor is the agent's chat span for model message msgID: the open one
// when it is the same message (or either id is unknown), else a new one
// after the open one is closed.
func (b *Builder) chatFor(agent, msgID string, seq int64, at time.Time) *chatSpan {
	c := b.chats[agent]
	if c != nil && msgID != "" && c.msgID != "" && c.msgID != msgID {
		b.closeChat(agent)
		c = nil
	}
	if c == nil {
		c = b.chat(agent, seq, at)
	}
	if c.msgID == "" {
		c.msgID = msgID
	}
	return c
}

func (b *Builder) chat(agent string, seq int64, at time.Time) *chatSpan {
	if c := b.chats[agent]; c != nil {
		return c
	}
	c := &chatSpan{span: &Span{
		Op: OpChat, Trace: b.trace, ID: spanIDFor(b.identity, OpChat, seqKey(seq)),
		Parent: b.parentOf(agent), Start: at, End: at, FirstSeq: seq, LastSeq: seq,
	}}
	if agent != "" {
		c.span.Attrs = append(c.span.Attrs, KeyParentToolCallID.String(agent))
	}
	b.chats[agent] = c
	return c
}

func (c *chatSpan) setModel(model string) {
	for _, a := range c.span.Attrs {
		if a.Key == semconv.GenAIResponseModelKey {
			return
		}
	}
	c.span.Attrs = append(c.span.Attrs, semconv.GenAIResponseModelKey.String(model))
}

func (b *Builder) closeChat(agent string) {
	c := b.chats[agent]
	if c == nil {
		return
	}
	delete(b.chats, agent)
	s := c.span
	model := b.model
	for _, a := range s.Attrs {
		if a.Key == semconv.GenAIResponseModelKey {
			model = a.Value.AsString()
		}
	}
	s.Name = "chat"
	if model != "" {
		s.Name = "chat " + model
		s.Attrs = append(s.Attrs, semconv.GenAIRequestModelKey.String(model))
	}
	s.Attrs = append(s.Attrs, semconv.GenAIOperationNameChat, b.providerAttr())
	if len(c.text) > 0 {
		s.Attrs = append(s.Attrs, KeyOutputText.String(string(c.text)))
	}
	if c.usage != nil {
		s.Attrs = append(s.Attrs, usageAttrs(*c.usage)...)
	}
	b.finish(s)
}

func usageAttrs(u event.Usage) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		semconv.GenAIUsageInputTokensKey.Int64(u.InputTokens),
		semconv.GenAIUsageOutputTokensKey.Int64(u.OutputTokens),
		KeyCacheReadTokens.Int64(u.CacheReadTokens),
		KeyCacheWriteTokens.Int64(u.CacheWriteTokens),
	}
	if u.ReasoningTokens > 0 {
		attrs = append(attrs, KeyReasoningTokens.Int64(u.ReasoningTokens))
	}
	return attrs
}

// usage places token counts. A usage event of one model message (it has
// a message id) is that message's chat span's figure; a later one for the
// same message replaces it (Claude reports a message's usage at its start
// and again at its end). Cumulative figures are the run's totals, set on
// the root; when the agent reported no per-message usage, the difference
// from the previous cumulative figure is the current turn's chat usage
// (Codex, Gemini).
func (b *Builder) usage(ev *event.Event, agent string, seq int64, at time.Time) {
	if ev.Usage == nil {
		return
	}
	u := *ev.Usage
	if !u.Cumulative {
		b.perMessage[agent] = true
		c := b.chatFor(agent, ev.MessageID, seq, at)
		c.span.LastSeq, c.span.End = seq, at
		c.usage = &u
		return
	}
	if agent == "" {
		total := u
		b.total = &total
	}
	if b.perMessage[agent] {
		return
	}
	prev := b.lastCumulative[agent]
	b.lastCumulative[agent] = u
	u.InputTokens -= prev.InputTokens
	u.OutputTokens -= prev.OutputTokens
	u.CacheReadTokens -= prev.CacheReadTokens
	u.CacheWriteTokens -= prev.CacheWriteTokens
	u.ReasoningTokens -= prev.ReasoningTokens
	c := b.chat(agent, seq, at)
	c.span.LastSeq, c.span.End = seq, at
	c.usage = &u
	b.closeChat(agent)
}

func (b *Builder) toolCall(ev *event.Event, seq int64, at time.Time) {
	id := ev.ToolCallID
	if id == "" {
		id = "seq-" + seqKey(seq)
	}
	s := b.tools[id]
	if s == nil {
		s = &Span{
			Op: OpExecuteTool, Trace: b.trace, ID: spanIDFor(b.identity, OpExecuteTool, id),
			Parent: b.parentOf(ev.ParentToolCallID), Start: at, End: at, FirstSeq: seq, LastSeq: seq,
		}
		s.Attrs = append(s.Attrs, semconv.GenAIToolCallIDKey.String(ev.ToolCallID))
		if ev.ParentToolCallID != "" {
			s.Attrs = append(s.Attrs, KeyParentToolCallID.String(ev.ParentToolCallID))
		}
		b.tools[id] = s
	}
	s.LastSeq, s.End = seq, at
	if ev.MessageID != "" {
		// The model message that asked for the tool lasts until the call.
		c := b.chatFor(ev.ParentToolCallID, ev.MessageID, seq, at)
		c.span.LastSeq, c.span.End = seq, at
	}
	if ev.Tool != nil {
		s.Name = "execute_tool " + ev.Tool.Name
		setAttr(&s.Attrs, semconv.GenAIToolNameKey.String(ev.Tool.Name))
		setAttr(&s.Attrs, KeyToolSummary.String(ev.Tool.Summary))
		if b.opts.Content && len(ev.Tool.Input) > 0 {
			setAttr(&s.Attrs, KeyToolArguments.String(string(ev.Tool.Input)))
		}
	}
}

func setAttr(attrs *[]attribute.KeyValue, kv attribute.KeyValue) {
	for i, a := range *attrs {
		if a.Key == kv.Key {
			(*attrs)[i] = kv
			return
		}
	}
	*attrs = append(*attrs, kv)
}

func (b *Builder) toolResult(ev *event.Event, seq int64, at time.Time) {
	// The model's turn that asked for the tool is over once the tool has
	// run, unless the provider counts the result as part of the same
	// message (opencode's step holds the call, its result and the usage).
	if c := b.chats[ev.ParentToolCallID]; c != nil && (ev.MessageID == "" || ev.MessageID != c.msgID) {
		b.closeChat(ev.ParentToolCallID)
	}
	id := ev.ToolCallID
	s := b.tools[id]
	if s == nil {
		b.toolCall(&event.Event{Kind: event.KindTool, ToolCallID: id, ParentToolCallID: ev.ParentToolCallID}, seq, at)
		s = b.tools[id]
	}
	delete(b.tools, id)
	s.LastSeq, s.End = seq, at
	status := "completed"
	if ev.Phase == event.PhaseFailed || (ev.ToolResult != nil && ev.ToolResult.IsError) {
		status = "failed"
		s.Failed = true
		s.StatusMessage = "tool call failed"
		s.Attrs = append(s.Attrs, semconv.ErrorTypeKey.String("tool_error"))
	}
	s.Attrs = append(s.Attrs, KeyToolStatus.String(status))
	if b.opts.Content && ev.ToolResult != nil {
		s.Attrs = append(s.Attrs, KeyToolResult.String(ev.ToolResult.Output))
	}
	b.finishTool(s)
}

func (b *Builder) finishTool(s *Span) {
	if s.Name == "" {
		s.Name = "execute_tool"
	}
	s.Attrs = append(s.Attrs, semconv.GenAIOperationNameExecuteTool, b.providerAttr())
	b.finish(s)
}

func (b *Builder) subagent(ev *event.Event, seq int64, at time.Time) {
	key := ev.ParentToolCallID
	if key == "" && ev.Agent != nil {
		key = ev.Agent.ID
	}
	if b.agentsDone[key] {
		// A report after the subagent's end (a late notification) adds
		// nothing to a span that was already sent.
		return
	}
	s := b.agents[key]
	if s == nil {
		s = &Span{
			Op: OpInvokeAgent, Trace: b.trace, ID: spanIDFor(b.identity, OpInvokeAgent, "agent-"+key),
			Parent: b.parentOfAgent(key), Start: at, End: at, FirstSeq: seq, LastSeq: seq,
		}
		b.agents[key] = s
	}
	s.LastSeq, s.End = seq, at
	if ev.Agent != nil {
		name := orDefault(ev.Agent.Name, "subagent")
		s.Name = "invoke_agent " + name
		setAttr(&s.Attrs, semconv.GenAIAgentNameKey.String(name))
		if ev.Agent.ID != "" {
			setAttr(&s.Attrs, semconv.GenAIAgentIDKey.String(ev.Agent.ID))
		}
	}
	if ev.Phase == event.PhaseCompleted || ev.Phase == event.PhaseFailed {
		delete(b.agents, key)
		b.agentsDone[key] = true
		if ev.Phase == event.PhaseFailed {
			s.Failed, s.StatusMessage = true, "subagent failed"
		}
		b.finishAgent(s, key)
	}
}

// parentOfAgent: a subagent hangs under the tool call that started it.
func (b *Builder) parentOfAgent(parentToolCallID string) trace.SpanID {
	if parentToolCallID == "" {
		return b.root.ID
	}
	if s := b.tools[parentToolCallID]; s != nil {
		return s.ID
	}
	return spanIDFor(b.identity, OpExecuteTool, parentToolCallID)
}

func (b *Builder) finishAgent(s *Span, parentToolCallID string) {
	if s.Name == "" {
		s.Name = "invoke_agent subagent"
	}
	s.Attrs = append(s.Attrs, semconv.GenAIOperationNameInvokeAgent, b.providerAttr())
	if parentToolCallID != "" {
		s.Attrs = append(s.Attrs, KeyParentToolCallID.String(parentToolCallID))
	}
	b.finish(s)
}

// addEvent puts a span event on the agent's open chat span, else on the
// root (the run as a whole).
func (b *Builder) addEvent(agent string, se SpanEvent) {
	if c := b.chats[agent]; c != nil {
		c.span.Events = append(c.span.Events, se)
		return
	}
	b.root.Events = append(b.root.Events, se)
}

func (b *Builder) finish(s *Span) {
	s.Attrs = append(s.Attrs, KeySequenceFirst.Int64(s.FirstSeq), KeySequenceLast.Int64(s.LastSeq))
	if b.emit != nil {
		b.emit(s)
	}
}

// providerAttr is gen_ai.provider.name for the capture's provider: its
// descriptor's System (the model vendor where the CLI has one, else the
// CLI's own name), or the name itself for a provider evcap does not know.
func (b *Builder) providerAttr() attribute.KeyValue {
	if d, ok := providers.Lookup(b.provider); ok {
		return semconv.GenAIProviderNameKey.String(d.System)
	}
	return semconv.GenAIProviderNameKey.String(orDefault(b.provider, "unknown"))
}

// TraceID is the trace the capture's spans belong to (zero before the
// first record).
func (b *Builder) TraceID() trace.TraceID { return b.trace }

// Close ends every span still open (at the time of the last record) and
// the root span, handing each to emit. A Builder that saw no record emits
// nothing. Close is idempotent.
func (b *Builder) Close() {
	if b.root == nil || !b.rootOpen {
		return
	}
	b.rootOpen = false
	for _, key := range sortedKeys(b.chats) {
		b.closeChat(key)
	}
	for _, id := range sortedKeys(b.tools) {
		s := b.tools[id]
		delete(b.tools, id)
		s.End = b.last
		s.Attrs = append(s.Attrs, KeyToolStatus.String("incomplete"))
		b.finishTool(s)
	}
	for _, key := range sortedKeys(b.agents) {
		s := b.agents[key]
		delete(b.agents, key)
		s.End = b.last
		b.finishAgent(s, key)
	}
	r := b.root
	r.End = b.last
	r.LastSeq = b.lastSeq
	agentName := orDefault(b.cliName, orDefault(b.provider, "agent"))
	r.Name = "invoke_agent " + agentName
	r.Attrs = append(r.Attrs, semconv.GenAIOperationNameInvokeAgent, b.providerAttr(),
		semconv.GenAIAgentNameKey.String(agentName), KeyProvider.String(b.provider),
		KeyCaptureID.String(b.captureID))
	if b.opts.File != "" {
		r.Attrs = append(r.Attrs, KeyCaptureFile.String(b.opts.File))
	}
	if b.cliName != "" {
		r.Attrs = append(r.Attrs, KeyCLIName.String(b.cliName))
	}
	if b.cliVer != "" {
		r.Attrs = append(r.Attrs, KeyCLIVersion.String(b.cliVer))
	}
	if b.model != "" {
		r.Attrs = append(r.Attrs, semconv.GenAIRequestModelKey.String(b.model))
	}
	if b.session != "" {
		r.Attrs = append(r.Attrs, semconv.GenAIConversationIDKey.String(b.session))
	}
	if b.total != nil {
		r.Attrs = append(r.Attrs, usageAttrs(*b.total)...)
	}
	if b.exit != nil {
		r.Attrs = append(r.Attrs, KeyExitCode.Int(*b.exit))
	}
	if b.signal != "" {
		r.Attrs = append(r.Attrs, KeySignal.String(b.signal))
	}
	if b.cleanEnd != nil {
		r.Attrs = append(r.Attrs, KeyCleanEnd.Bool(*b.cleanEnd))
	}
	if b.synthetic {
		r.Attrs = append(r.Attrs, KeyTimingSynthetic.Bool(true))
	}
	if b.relative {
		r.Attrs = append(r.Attrs, KeyTimingRelative.Bool(true))
	}
	switch {
	case b.fatal != "":
		r.Failed, r.StatusMessage = true, b.fatal
	case b.resultFailed:
		r.Failed, r.StatusMessage = true, b.resultMsg
	case b.exit != nil && *b.exit != 0:
		r.Failed, r.StatusMessage = true, fmt.Sprintf("exit status %d", *b.exit)
	case b.signal != "":
		r.Failed, r.StatusMessage = true, "killed by "+b.signal
	}
	b.finish(r)
}
