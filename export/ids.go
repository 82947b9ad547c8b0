package export

import (
	"crypto/sha256"
	"path/filepath"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/trace"
)

// Identity is what a capture's trace and span ids are derived from: its
// capture id, unique per recording. A fixture keeps no capture id of its
// own (package source calls it "fixture:" and its name, which fixtures of
// different providers share), so a fixture's identity adds its provider
// and the path it was read from.
func Identity(captureID, provider, file string) string {
	if strings.HasPrefix(captureID, "fixture:") {
		return captureID + "\x00" + provider + "\x00" + filepath.ToSlash(filepath.Clean(file))
	}
	return captureID
}

// TraceIDFor is the trace id of a capture identity (see Identity), so
// every export of the same capture lands in the same trace.
func TraceIDFor(identity string) trace.TraceID {
	sum := sha256.Sum256([]byte("evcap trace\x00" + identity))
	var id trace.TraceID
	copy(id[:], sum[:16])
	return id
}

// spanIDFor derives a span id from the capture identity, the span's operation
// and a key that is unique for that operation within the capture (a tool
// call id, or the sequence number that opened the span).
func spanIDFor(identity string, op Operation, key string) trace.SpanID {
	sum := sha256.Sum256([]byte("evcap span\x00" + identity + "\x00" + string(op) + "\x00" + key))
	var id trace.SpanID
	copy(id[:], sum[:8])
	if !id.IsValid() { // all zero: vanishingly unlikely, but invalid in OTel
		id[7] = 1
	}
	return id
}

func seqKey(seq int64) string { return strconv.FormatInt(seq, 10) }
