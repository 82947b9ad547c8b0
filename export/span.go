package export

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Operation is the GenAI operation a span stands for.
type Operation string

// The operations of the spans a capture becomes (gen_ai.operation.name).
const (
	OpInvokeAgent Operation = "invoke_agent"
	OpChat        Operation = "chat"
	OpExecuteTool Operation = "execute_tool"
)

// Span is one finished span of a capture's trace, in terms independent of
// any OpenTelemetry SDK, so that it can be checked in tests and emitted by
// either the batch or the live path.
type Span struct {
	Op     Operation
	Name   string
	Trace  trace.TraceID
	ID     trace.SpanID
	Parent trace.SpanID // zero for the root span
	Start  time.Time
	End    time.Time
	Attrs  []attribute.KeyValue
	Events []SpanEvent
	// Failed marks the span's status as an error, with StatusMessage.
	Failed        bool
	StatusMessage string
	// FirstSeq and LastSeq are the capture sequence numbers the span
	// covers (also set as attributes, so a trace leads to its records).
	FirstSeq, LastSeq int64
}

// SpanEvent is a point in time inside a span: a retry, an error, a rate
// limit report, a permission prompt or reply, a hook run.
type SpanEvent struct {
	Name  string
	Time  time.Time
	Attrs []attribute.KeyValue
}

// Attribute keys evcap adds beside the GenAI semantic conventions. The
// cache token and tool argument/result keys carry the names later
// releases of the conventions use.
const (
	KeyCaptureID        = attribute.Key("evcap.capture.id")
	KeyCaptureFile      = attribute.Key("evcap.capture.file")
	KeySequenceFirst    = attribute.Key("evcap.sequence.first")
	KeySequenceLast     = attribute.Key("evcap.sequence.last")
	KeyCLIName          = attribute.Key("evcap.cli.name")
	KeyCLIVersion       = attribute.Key("evcap.cli.version")
	KeyProvider         = attribute.Key("evcap.provider")
	KeyExitCode         = attribute.Key("process.exit.code")
	KeySignal           = attribute.Key("evcap.exit.signal")
	KeyCleanEnd         = attribute.Key("evcap.clean_end")
	KeyTimingSynthetic  = attribute.Key("evcap.timing.synthetic")
	KeyTimingRelative   = attribute.Key("evcap.timing.relative")
	KeyNumTurns         = attribute.Key("evcap.result.num_turns")
	KeyCostUSD          = attribute.Key("evcap.result.cost_usd")
	KeyResultSubtype    = attribute.Key("evcap.result.subtype")
	KeyToolStatus       = attribute.Key("evcap.tool.status")
	KeyToolSummary      = attribute.Key("evcap.tool.summary")
	KeyParentToolCallID = attribute.Key("evcap.parent_tool_call.id")
	KeyCacheReadTokens  = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	KeyCacheWriteTokens = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	KeyReasoningTokens  = attribute.Key("gen_ai.usage.reasoning.output_tokens")
	KeyToolArguments    = attribute.Key("gen_ai.tool.call.arguments")
	KeyToolResult       = attribute.Key("gen_ai.tool.call.result")
	KeyOutputText       = attribute.Key("evcap.output.text")
)
