package source

import (
	"bytes"
	"io"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
)

// FixtureRecords returns the events of fx as capture lines, one envelope
// record per event in fixture order, so that a fixture reads like the
// capture it was promoted from. What a fixture does not keep is filled in
// plainly: captureId is "fixture:" and the fixture's name, timestamps,
// session and turn are empty, redaction ledgers are empty. No meta records
// are made up, so sequence numbers keep the gaps the capture's meta records
// left.
func FixtureRecords(fx *fixtures.Fixture) io.Reader {
	return &fixtureReader{fx: fx}
}

type fixtureReader struct {
	fx   *fixtures.Fixture
	next int
	buf  bytes.Buffer
	line []byte
}

func (r *fixtureReader) Read(p []byte) (int, error) {
	for r.buf.Len() == 0 {
		if r.next >= len(r.fx.Events) {
			return 0, io.EOF
		}
		e := r.fx.Events[r.next]
		r.next++
		rec := envelope.Record{
			SchemaVersion: envelope.SchemaVersion,
			CaptureID:     "fixture:" + r.fx.Name,
			Sequence:      e.Sequence,
			Provider:      r.fx.Provider,
			Stage:         e.Stage,
			EventType:     e.EventType,
			Payload:       e.Payload,
			Redactions:    []envelope.Redaction{},
			Cause:         e.Cause,
		}
		if r.fx.Restored && e.Stage == envelope.StageNativeIn {
			rec.Source = envelope.SourceHistory
		}
		r.line = envelope.AppendRecord(r.line[:0], &rec)
		r.buf.Write(r.line)
	}
	return r.buf.Read(p)
}
