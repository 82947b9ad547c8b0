package claude

import (
	"slices"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/census"
	"github.com/tidwall/gjson"
)

// HistoryNormalizer turns the lines of a stored Claude Code session
// ($CLAUDE_CONFIG_DIR/projects/<cwd slug>/<session id>.jsonl) into the
// same normalized events as the stream normalizer. A stored session has no
// stream events: every assistant line holds one whole content block, every
// user line a prompt or the results of tool calls. Those two line types
// are read by the stream Normalizer (the "message not streamed" path), so
// tool summaries, usage and event shapes are the stream's own; this type
// adds what only a stored session has:
//
//	stored line                       normalized events
//	first line with sessionId         init completed (sessionId, version)
//	user, assistant                   as the stream normalizer (text|thinking|tool completed, tool_result)
//	system/api_error                  retry updated (attempt=retryAttempt, maxRetries, delayMs=retryInMs)
//	system/compact_boundary           status updated "compacted"
//	system/<other subtypes it knows>  none: ignored (see historyIgnored)
//	queue-operation, attachment,      none: ignored (prompt queue, context listings, UI state)
//	last-prompt, summary, ...
//	end of the stored session         result: completed with the last assistant text (failed when a fatal
//	                                  error came after it), subtype "restored"
//
// A stored session does not say whether the run finished: the result at
// the end is synthesized from what is there, never "incomplete".
type HistoryNormalizer struct {
	inner     *Normalizer
	sawLine   bool
	sawInit   bool
	sessionID string
	lastText  string
	lastFatal bool
	lastRef   int64
}

// NewHistory returns a HistoryNormalizer at the start of a stored session.
func NewHistory() *HistoryNormalizer { return &HistoryNormalizer{inner: New()} }

// historyIgnored lists the stored line types (and system subtypes) the
// history normalizer drops on purpose, and why.
var historyIgnored = map[string]string{
	"queue-operation":          "the CLI's prompt queue (enqueue/dequeue of the prompt the user line repeats)",
	"attachment":               "context the CLI attached for the model (agent and skill listings, file mentions), not agent output",
	"last-prompt":              "a pointer to the latest prompt, for the CLI's resume picker",
	"summary":                  "a title the CLI wrote for its session list",
	"custom-title":             "a title the user gave the session",
	"file-history-snapshot":    "the CLI's file backup bookkeeping for undo",
	"progress":                 "live progress of a hook or subagent, superseded by the entries that follow",
	"system/turn_duration":     "timing bookkeeping",
	"system/stop_hook_summary": "hook bookkeeping",
	"system/local_command":     "a slash command typed in the UI",
	"system/informational":     "a notice the UI showed",
}

// Line normalizes one stored line. ref goes into the Cause of every event
// derived from it.
func (n *HistoryNormalizer) Line(ref int64, line []byte) []event.Event {
	if len(strings.TrimSpace(string(line))) == 0 {
		return nil
	}
	n.sawLine = true
	n.lastRef = ref
	if !gjson.ValidBytes(line) {
		return []event.Event{unknown(ref, census.Invalid)}
	}
	v := gjson.ParseBytes(line)
	if !v.IsObject() {
		return []event.Event{unknown(ref, census.Invalid)}
	}
	var out []event.Event
	if sid := v.Get("sessionId").String(); sid != "" && !n.sawInit {
		n.sawInit, n.sessionID = true, sid
		out = append(out, event.Event{Kind: event.KindInit, Phase: event.PhaseCompleted, SessionID: sid,
			Version: v.Get("version").String(), Cause: []int64{ref}})
	}
	typ := v.Get("type").String()
	switch typ {
	case "user", "assistant":
		for _, ev := range n.inner.Line(ref, line) {
			switch {
			case ev.Kind == event.KindText && ev.Phase == event.PhaseCompleted:
				n.lastText, n.lastFatal = ev.Text, false
			case ev.Kind == event.KindError && ev.Error != nil && ev.Error.Fatal:
				n.lastFatal = true
			}
			out = append(out, ev)
		}
		return out
	case "system":
		sub := v.Get("subtype").String()
		switch sub {
		case "api_error":
			return append(out, event.Event{Kind: event.KindRetry, Phase: event.PhaseUpdated, Cause: []int64{ref},
				Retry: &event.Retry{
					Attempt:    int(v.Get("retryAttempt").Int()),
					MaxRetries: int(v.Get("maxRetries").Int()),
					DelayMs:    v.Get("retryInMs").Int(),
					Status:     int(v.Get("error.status").Int()),
					Error:      v.Get("error.error.message").String(),
				}})
		case "compact_boundary":
			return append(out, event.Event{Kind: event.KindStatus, Phase: event.PhaseUpdated, Status: "compacted",
				NativeType: "system/compact_boundary", Cause: []int64{ref}})
		}
		if _, ok := historyIgnored["system/"+sub]; ok {
			return out
		}
		return append(out, unknown(ref, "system/"+sub))
	}
	if _, ok := historyIgnored[typ]; ok {
		return out
	}
	return append(out, unknown(ref, nativeType(v)))
}

// End closes the stored session with a synthesized result: the last
// assistant text is the final answer.
func (n *HistoryNormalizer) End() []event.Event {
	var out []event.Event
	for _, ev := range n.inner.End() {
		if ev.Kind != event.KindResult {
			out = append(out, ev)
		}
	}
	if !n.sawLine {
		return out
	}
	ph := event.PhaseCompleted
	if n.lastFatal {
		ph = event.PhaseFailed
	}
	return append(out, event.Event{Kind: event.KindResult, Phase: ph, SessionID: n.sessionID,
		Result: &event.Result{Subtype: "restored", IsError: n.lastFatal, Text: n.lastText}})
}

// historyFields are the envelope fields every stored user or assistant
// line carries besides what stream-json prints.
var historyFields = []string{"parentUuid", "isSidechain", "promptId", "uuid", "timestamp", "permissionMode",
	"promptSource", "userType", "entrypoint", "cwd", "sessionId", "version", "gitBranch", "toolUseResult",
	"sourceToolAssistantUUID", "requestId", "isMeta", "slug", "isApiErrorMessage", "error", "agentId",
	"isCompactSummary", "isVisibleInTranscriptOnly", "logicalParentUuid", "thinkingMetadata", "todos"}

// Classify reports how Line treats a stored line.
func (n *HistoryNormalizer) Classify(line []byte) event.Classification {
	if !gjson.ValidBytes(line) {
		return event.Classification{NativeType: census.Invalid, Disposition: event.DispositionUnknown}
	}
	v := gjson.ParseBytes(line)
	typ := v.Get("type").String()
	switch typ {
	case "user", "assistant":
		c := n.inner.Classify(line)
		c.UnknownFields = slices.DeleteFunc(c.UnknownFields, func(f string) bool {
			return slices.Contains(historyFields, f)
		})
		if len(c.UnknownFields) == 0 {
			c.UnknownFields = nil
		}
		return c
	case "system":
		nt := "system/" + v.Get("subtype").String()
		switch nt {
		case "system/api_error", "system/compact_boundary":
			return event.Classification{NativeType: nt, Disposition: event.DispositionHandled}
		}
		if r, ok := historyIgnored[nt]; ok {
			return event.Classification{NativeType: nt, Disposition: event.DispositionIgnored, Reason: r}
		}
		return event.Classification{NativeType: nt, Disposition: event.DispositionUnknown}
	}
	if r, ok := historyIgnored[typ]; ok {
		return event.Classification{NativeType: typ, Disposition: event.DispositionIgnored, Reason: r}
	}
	return event.Classification{NativeType: nativeType(v), Disposition: event.DispositionUnknown}
}
