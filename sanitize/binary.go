package sanitize

import (
	"encoding/base64"
	"unicode/utf8"

	"github.com/evcap/evcap/envelope"
	"github.com/tidwall/gjson"
)

// RuleInvalidUTF8 is the ledger rule of a line that was not valid UTF-8:
// capture stores such a line (non_json or stderr) as base64 so that no
// byte is lost; sanitize writes it as a JSON string instead, each run of
// invalid bytes replaced by U+FFFD. Count is the number of runs replaced,
// OriginalLength the line's length in bytes. The id has letters and
// dashes only, like every redact rule id.
const RuleInvalidUTF8 = "invalid-utf-bytes"

// binaryLine returns the text of a non_json or stderr record whose payload
// is the base64 form envelope.EncodeNativeLine writes for a line that is
// not valid UTF-8, with each run of invalid bytes replaced by U+FFFD, how
// many runs were replaced and the line's length in bytes. ok is false for
// any other record, and for base64 that does not decode (kept as it is).
// Base64 of valid UTF-8 (never written by evcap) gives runs == 0: the text
// is then the line exactly.
func binaryLine(rec *envelope.Record) (text []byte, runs, n int, ok bool) {
	if rec.EventType != envelope.EventNonJSON && rec.EventType != envelope.EventStderr {
		return nil, 0, 0, false
	}
	if len(rec.Payload) == 0 || rec.Payload[0] != '{' || !gjson.ValidBytes(rec.Payload) {
		return nil, 0, 0, false
	}
	v := gjson.GetManyBytes(rec.Payload, "encoding", "data")
	if v[0].String() != "base64" || v[1].Type != gjson.String {
		return nil, 0, 0, false
	}
	raw, err := base64.StdEncoding.DecodeString(v[1].String())
	if err != nil {
		return nil, 0, 0, false
	}
	text, runs = toValidUTF8(raw)
	return text, runs, len(raw), true
}

// toValidUTF8 is bytes.ToValidUTF8 with U+FFFD that also counts the runs
// of invalid bytes it replaced.
func toValidUTF8(b []byte) ([]byte, int) {
	if utf8.Valid(b) {
		return b, 0
	}
	out := make([]byte, 0, len(b)+8)
	runs := 0
	inRun := false
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			if !inRun {
				out = append(out, "\uFFFD"...)
				runs++
				inRun = true
			}
			i++
			continue
		}
		inRun = false
		out = append(out, b[i:i+size]...)
		i += size
	}
	return out, runs
}
