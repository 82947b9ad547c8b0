package envelope_test

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/evcap/evcap/envelope"
)

// A capture is written record by record; the writer numbers them.
func ExampleWriter() {
	var buf bytes.Buffer
	clock := func() time.Time { return time.Date(2026, 11, 29, 19, 0, 0, 0, time.UTC) }
	w := envelope.NewWriter(&buf, envelope.WriterOptions{CaptureID: "01JDXKQ5T8M3V9ZQ7G2H4N6P8R", Now: clock})
	line := []byte(`{"type":"thread.started","thread_id":"t1"}`)
	payload, _ := envelope.EncodeNativeLine(line)
	seq, _ := w.Write(&envelope.Record{Provider: "codex", Stage: envelope.StageNativeIn,
		EventType: "thread.started", Payload: payload})
	_ = w.Close()
	fmt.Println(seq)
	fmt.Print(buf.String())
	// Output:
	// 1
	// {"schemaVersion":1,"captureId":"01JDXKQ5T8M3V9ZQ7G2H4N6P8R","sequence":1,"timestamp":"2026-11-29T19:00:00.000Z","provider":"codex","sessionId":"","turnId":"","stage":"native_in","eventType":"thread.started","payload":{"type":"thread.started","thread_id":"t1"},"redactions":[]}
}

// A capture is read back one record at a time; a torn last line is an
// error after every complete record.
func ExampleReader() {
	capture := `{"schemaVersion":1,"captureId":"C","sequence":1,"timestamp":"t","provider":"codex","sessionId":"","turnId":"","stage":"native_in","eventType":"turn.started","payload":{"type":"turn.started"},"redactions":[]}
{"schemaVersion":1,"captureId":"C","sequence":2,"timest`
	r := envelope.NewReader(bytes.NewBufferString(capture), "demo.jsonl", envelope.ReaderOptions{})
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(rec.Sequence, rec.Stage, rec.EventType, string(rec.Payload))
	}
	// Output:
	// 1 native_in turn.started {"type":"turn.started"}
	// error: demo.jsonl:2: sequence 2: torn last line (no newline at end of capture)
}
