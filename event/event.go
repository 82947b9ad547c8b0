// Package event defines evcap's normalized event model: the one shape that
// every provider normalizer produces and every renderer consumes.
//
// An Event is what a person would describe a moment of an agent run as: the
// model started thinking, a piece of text arrived, a tool was called, a retry
// is pending. Its JSON form is the payload of normalized_out records in a
// capture, so it is stable: fields are only ever added, never renamed.
//
// Every event has a Kind and a Phase. Kinds follow the seed integrations'
// event set (Init, Thinking, Text, ToolUse, Tokens, Result, Error, Retry) and
// the chat_event kind/phase vocabulary:
//
//	kind         phases used                  payload field
//	init         completed                    Model, Version, SessionID
//	thinking     started, delta, completed    Text
//	text         started, delta, completed    Text
//	tool         started, updated, completed  Tool
//	tool_result  completed, failed            ToolResult
//	usage        updated                      Usage
//	result       completed, failed            Result
//	error        failed                       Error
//	retry        updated                      Retry
//	permission   started, completed           Permission (request, then reply)
//	status       updated                      Status
//	rate_limit   updated                      RateLimit
//	hook         started, updated, completed, failed   Hook
//	agent        started, updated, completed, failed   Agent (a subagent's own life)
//	unknown      updated                      NativeType (the raw line stays in the capture)
//
// Subagents: every event that belongs to a subagent's work (its text, its
// tool calls and results, its usage) carries ParentToolCallID, the id of the
// tool call that started it (Claude's Task/Agent tool use, a Codex
// collab_tool_call, the opencode task tool call that made a child session),
// and Agent, the subagent's identity as far as the provider tells it. Events
// of the main agent have neither, so a consumer that ignores them still
// sees every event, just without the nesting.
//
// A text event may carry MessagePhase when the provider says what the text
// is for: commentary between tool calls, or the final answer.
//
// A delta event carries only the new piece of text; a completed thinking or
// text event carries the whole block text, so a consumer that ignores deltas
// still sees every word exactly once.
//
// Example normalized_out payloads:
//
//	{"kind":"init","phase":"completed","sessionId":"6c66e7d7-…","model":"claude-sonnet-4-5-20250929","version":"2.1.197","cause":[1]}
//	{"kind":"text","phase":"delta","messageId":"msg_01…","partId":"1","text":"Hello a","cause":[7]}
//	{"kind":"tool","phase":"completed","toolCallId":"toolu_01…","tool":{"name":"Bash","summary":"ls","input":{"command":"ls"}},"cause":[12,13,14]}
//	{"kind":"usage","phase":"updated","usage":{"inputTokens":4800,"outputTokens":324,"cumulative":true},"cause":[11]}
//
// The package knows nothing of files, envelopes or terminals.
package event

import "encoding/json"

// Kind says what an event is about.
type Kind string

// The kinds of normalized events.
const (
	KindInit       Kind = "init"
	KindThinking   Kind = "thinking"
	KindText       Kind = "text"
	KindTool       Kind = "tool"
	KindToolResult Kind = "tool_result"
	KindUsage      Kind = "usage"
	KindResult     Kind = "result"
	KindError      Kind = "error"
	KindRetry      Kind = "retry"
	KindPermission Kind = "permission"
	KindStatus     Kind = "status"
	KindRateLimit  Kind = "rate_limit"
	KindHook       Kind = "hook"
	KindAgent      Kind = "agent"
	KindUnknown    Kind = "unknown"
)

// Kinds returns every Kind in a stable order (for schemas, censuses and
// tests); a fresh slice each call.
func Kinds() []Kind { return append([]Kind(nil), kinds...) }

var kinds = []Kind{KindInit, KindThinking, KindText, KindTool, KindToolResult, KindUsage,
	KindResult, KindError, KindRetry, KindPermission, KindStatus, KindRateLimit, KindHook,
	KindAgent, KindUnknown}

// Phase says where in its life the thing an event describes is.
type Phase string

// The phases of normalized events.
const (
	PhaseStarted   Phase = "started"
	PhaseDelta     Phase = "delta"
	PhaseUpdated   Phase = "updated"
	PhaseCompleted Phase = "completed"
	PhaseFailed    Phase = "failed"
)

// Phases returns every Phase in a stable order; a fresh slice each call.
func Phases() []Phase { return append([]Phase(nil), phases...) }

var phases = []Phase{PhaseStarted, PhaseDelta, PhaseUpdated, PhaseCompleted, PhaseFailed}

// Event is one normalized event. Only Kind and Phase are always set; the
// other fields apply as the kind table in the package doc says.
type Event struct {
	Kind  Kind  `json:"kind"`
	Phase Phase `json:"phase"`

	// Identity, as far as the provider tells it.
	SessionID  string `json:"sessionId,omitempty"`
	TurnID     string `json:"turnId,omitempty"`
	MessageID  string `json:"messageId,omitempty"`
	PartID     string `json:"partId,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
	// ParentToolCallID is set on every event of a subagent's work: the id
	// of the tool call that started the subagent. Empty for the main agent.
	ParentToolCallID string `json:"parentToolCallId,omitempty"`
	// Agent names the subagent an event belongs to (with ParentToolCallID),
	// or, on an agent event, the subagent the event is about.
	Agent *Agent `json:"agent,omitempty"`
	// MessagePhase says what a text is for, when the provider tells:
	// MessagePhaseCommentary or MessagePhaseFinalAnswer.
	MessagePhase MessagePhase `json:"messagePhase,omitempty"`

	// Text is the new piece (delta) or the whole block (completed) of a
	// thinking or text event.
	Text string `json:"text,omitempty"`

	Tool       *Tool       `json:"tool,omitempty"`
	ToolResult *ToolResult `json:"toolResult,omitempty"`
	Usage      *Usage      `json:"usage,omitempty"`
	Result     *Result     `json:"result,omitempty"`
	Error      *Error      `json:"error,omitempty"`
	Retry      *Retry      `json:"retry,omitempty"`
	Permission *Permission `json:"permission,omitempty"`
	RateLimit  *RateLimit  `json:"rateLimit,omitempty"`
	Hook       *Hook       `json:"hook,omitempty"`

	// Status is a short provider status word ("requesting", "busy", "idle").
	Status string `json:"status,omitempty"`
	// Model and Version are set on init (and wherever the provider reports them).
	Model   string `json:"model,omitempty"`
	Version string `json:"version,omitempty"`
	// NativeType names the provider event this came from when the kind alone
	// loses that information (status and unknown events): "system/hook_started".
	NativeType string `json:"nativeType,omitempty"`

	// Cause lists the references (line numbers, or capture sequence numbers
	// when replayed from a capture) of the native lines this event was
	// derived from, in ascending order.
	Cause []int64 `json:"cause,omitempty"`
}

// Tool describes a tool call. Summary is one safe display line (see the
// normalizers); Input is the raw arguments and must never be rendered as is.
type Tool struct {
	Name    string          `json:"name"`
	Summary string          `json:"summary"`
	Input   json.RawMessage `json:"input,omitempty"`
}

// ToolResult is the outcome of a tool call. Output is cut for display;
// OutputBytes is the length of the full output.
type ToolResult struct {
	IsError     bool   `json:"isError"`
	Output      string `json:"output"`
	OutputBytes int    `json:"outputBytes"`
}

// Usage counts tokens. Cumulative is true when the numbers are running
// totals for the session (Codex) rather than for one model call.
type Usage struct {
	InputTokens      int64 `json:"inputTokens"`
	OutputTokens     int64 `json:"outputTokens"`
	CacheReadTokens  int64 `json:"cacheReadTokens"`
	CacheWriteTokens int64 `json:"cacheWriteTokens"`
	ReasoningTokens  int64 `json:"reasoningTokens"`
	Cumulative       bool  `json:"cumulative"`
}

// Total is the sum of input and output tokens, the figure people watch.
func (u Usage) Total() int64 { return u.InputTokens + u.OutputTokens }

// Result is the end of a run as the provider reports it (or as a normalizer
// synthesizes it when the stream ended without one: Subtype "incomplete").
type Result struct {
	Subtype    string  `json:"subtype,omitempty"`
	IsError    bool    `json:"isError"`
	NumTurns   int     `json:"numTurns,omitempty"`
	CostUSD    float64 `json:"costUsd,omitempty"`
	DurationMs int64   `json:"durationMs,omitempty"`
	Text       string  `json:"text,omitempty"`
}

// Error is a failure the provider reported. Fatal errors end the run.
type Error struct {
	Type    string `json:"type,omitempty"`
	Message string `json:"message"`
	Fatal   bool   `json:"fatal"`
}

// Retry is a pending retry of a failed model call.
type Retry struct {
	Attempt    int    `json:"attempt"`
	MaxRetries int    `json:"maxRetries,omitempty"`
	DelayMs    int64  `json:"delayMs,omitempty"`
	Status     int    `json:"status,omitempty"`
	Error      string `json:"error,omitempty"`
}

// Permission is a request to approve a tool use (phase started), or the
// answer to one (phase completed). ID ties the two together; the event's
// ToolCallID names the tool call, when the provider says. Summary is the
// same safe display line a tool event would carry; Reply is the provider's
// answer word ("allow", "deny", "once", "always", "reject"); Message is the
// reason the provider gave with a request or a denial.
type Permission struct {
	ID       string   `json:"id,omitempty"`
	Tool     string   `json:"tool,omitempty"`
	Summary  string   `json:"summary,omitempty"`
	Patterns []string `json:"patterns,omitempty"`
	Reply    string   `json:"reply,omitempty"`
	Message  string   `json:"message,omitempty"`
}

// Agent is a subagent's identity (ID, Name) and, on agent events, what the
// provider reports about its life. ID is the provider's own id for it (a
// Claude task_id, a Codex receiver thread id, an opencode child session id);
// Name is its type or configured name ("general-purpose", "explore").
type Agent struct {
	ID          string `json:"id,omitempty"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	// Status is the provider's word for where the subagent is ("running",
	// "completed", "failed", "stopped"); set on agent events only.
	Status string `json:"status,omitempty"`
	// Summary is the provider's closing summary of the subagent's work.
	Summary string `json:"summary,omitempty"`
}

// RateLimit is the provider's report on a usage limit: Status "allowed",
// "allowed_warning" or "rejected"; Type the window ("five_hour",
// "seven_day"); ResetsAt the Unix time in seconds when it resets;
// Utilization the used fraction (0..1) when reported.
type RateLimit struct {
	Status      string  `json:"status,omitempty"`
	Type        string  `json:"type,omitempty"`
	ResetsAt    int64   `json:"resetsAt,omitempty"`
	Utilization float64 `json:"utilization,omitempty"`
}

// Hook is a user-configured hook run by the agent CLI. ID ties the started,
// updated and completed events of one run together; Event is the hook event
// ("PreToolUse", "SessionStart"); Name the hook's display name
// ("PreToolUse:Bash"); Outcome the provider's verdict ("success", "error",
// "cancelled"); ExitCode the command's status when it ran one; Output what
// the hook printed, cut for display.
type Hook struct {
	ID       string `json:"id,omitempty"`
	Name     string `json:"name,omitempty"`
	Event    string `json:"event,omitempty"`
	Outcome  string `json:"outcome,omitempty"`
	ExitCode *int   `json:"exitCode,omitempty"`
	Output   string `json:"output,omitempty"`
}

// MessagePhase says what a text message is for.
type MessagePhase string

// The message phases a provider can report.
const (
	// MessagePhaseCommentary is text said along the way (between tool
	// calls), not the answer.
	MessagePhaseCommentary MessagePhase = "commentary"
	// MessagePhaseFinalAnswer is the text meant as the run's answer.
	MessagePhaseFinalAnswer MessagePhase = "final_answer"
)
