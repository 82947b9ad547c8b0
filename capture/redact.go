package capture

import (
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/redact"
)

// RedactHook returns a Hook that runs r over every payload and turns its
// findings into the record's redaction ledger. Payloads are redacted one by
// one here, so a secret split across streamed deltas keeps its pieces; a
// stream-aware pass catches those: evcap record runs one live
// (sanitize.LineRedactor) and evcap sanitize one over a finished capture.
func RedactHook(r *redact.Redactor) Hook {
	return func(_ envelope.Stage, payload []byte) ([]byte, []envelope.Redaction) {
		out, findings := r.Line(payload)
		return out, Ledger(findings)
	}
}

// Ledger converts redact findings to envelope ledger entries.
func Ledger(findings []redact.Finding) []envelope.Redaction {
	if len(findings) == 0 {
		return nil
	}
	out := make([]envelope.Redaction, len(findings))
	for i, f := range findings {
		out[i] = envelope.Redaction{Rule: f.Rule, Pointer: f.Pointer, Count: f.Count, OriginalLength: f.OriginalLength}
	}
	return out
}
