package minimize

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/replay"
)

// Capture is a capture held in memory for minimizing: its records as they
// were, and the fixture form the predicates work on.
type Capture struct {
	Records []*envelope.Record
	Fixture *fixtures.Fixture
}

// ReadCapture reads a capture from r (name for messages). The fixture form
// is what replay.LoadCapture makes of it; the records are kept so a reduced
// capture keeps its meta records, timestamps and ids.
func ReadCapture(r io.Reader, name string) (*Capture, error) {
	rd := envelope.NewReader(r, name, envelope.ReaderOptions{})
	var recs []*envelope.Record
	var buf []byte
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		recs = append(recs, rec)
		buf = envelope.AppendRecord(buf, rec)
	}
	fx, err := replay.LoadCapture(bytes.NewReader(buf), name)
	if err != nil {
		return nil, err
	}
	return &Capture{Records: recs, Fixture: fx}, nil
}

// nativeKept lists the sequence numbers of fx's native_in records.
func nativeKept(fx *fixtures.Fixture) []int64 {
	var keep []int64
	for _, e := range fx.Events {
		if e.Stage == envelope.StageNativeIn {
			keep = append(keep, e.Sequence)
		}
	}
	return keep
}

// WriteCapture writes the records of c that a reduced run fx keeps (see
// SubsetRecords) as a capture.
func (c *Capture) WriteCapture(w io.Writer, fx *fixtures.Fixture) error {
	var buf []byte
	for _, r := range SubsetRecords(c.Records, nativeKept(fx)) {
		buf = envelope.AppendRecord(buf[:0], r)
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// WriteFixture writes fx as fixture.json, in fixtures' canonical form.
func WriteFixture(w io.Writer, fx *fixtures.Fixture) error {
	doc, err := fixtures.Marshal(fx)
	if err != nil {
		return err
	}
	_, err = w.Write(doc)
	return err
}
