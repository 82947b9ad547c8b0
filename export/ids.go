package export

import (
	"crypto/sha256"
	"strconv"

	"go.opentelemetry.io/otel/trace"
)

// TraceIDFor is the trace id of a capture: derived from its capture id
// alone, so every export of the same capture lands in the same trace.
func TraceIDFor(captureID string) trace.TraceID {
	sum := sha256.Sum256([]byte("evcap trace\x00" + captureID))
	var id trace.TraceID
	copy(id[:], sum[:16])
	return id
}

// spanIDFor derives a span id from the capture id, the span's operation
// and a key that is unique for that operation within the capture (a tool
// call id, or the sequence number that opened the span).
func spanIDFor(captureID string, op Operation, key string) trace.SpanID {
	sum := sha256.Sum256([]byte("evcap span\x00" + captureID + "\x00" + string(op) + "\x00" + key))
	var id trace.SpanID
	copy(id[:], sum[:8])
	if !id.IsValid() { // all zero: vanishingly unlikely, but invalid in OTel
		id[7] = 1
	}
	return id
}

func seqKey(seq int64) string { return strconv.FormatInt(seq, 10) }
