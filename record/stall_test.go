package record

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/redact"
	"github.com/tidwall/gjson"
)

// TestLongRedactionIsNotAStall records, with a queue of 64 KiB and a stall
// timeout of 50 ms, a huge line whose redaction and normalization take far
// longer than that, followed by more lines than the queue holds: the
// reader waits for the pipeline meanwhile (backpressure), and nothing is
// dropped, since the pipeline was working, not stuck. (Fault row 07 lost
// megabytes this way on a loaded machine, where the redaction of its
// 1 MiB lines took over the 2 s default.)
func TestLongRedactionIsNotAStall(t *testing.T) {
	var in bytes.Buffer
	in.WriteString(`{"type":"system","subtype":"init","session_id":"s1"}` + "\n")
	// Words that look like credentials make the redactor work on every
	// one of them.
	in.WriteString(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"`)
	for i := 0; in.Len() < 128<<10; i++ {
		fmt.Fprintf(&in, "password=hunter%d token: abc%dxyz /home/someone/f%d ", i, i, i)
	}
	in.WriteString(`"}]},"session_id":"s1"}` + "\n")
	const after = 2000
	for i := range after {
		fmt.Fprintf(&in, `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"line %d of what came after the huge one"}},"session_id":"s1"}`+"\n", i)
	}
	red, err := redact.New(redact.Options{Home: "/home/someone"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "c.jsonl")
	start := time.Now()
	res, err := Stream(&oddReader{data: in.Bytes()}, Options{Provider: "claude", NewNormalizer: allNormalizers, Output: out,
		Redactor: red, QueueBytes: 64 << 10, StallTimeout: 50 * time.Millisecond})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("record: %v, exit %d", err, res.ExitCode)
	}
	took := time.Since(start)
	recs := readCapture(t, out)
	native := 0
	for _, r := range recs {
		if r.Stage == envelope.StageNativeIn {
			if r.EventType == envelope.EventGap {
				t.Errorf("gap record: %s", r.Payload)
			}
			native++
		}
	}
	end := recs[len(recs)-1].Payload
	if d := gjson.GetBytes(end, "droppedBytes").Int(); d != 0 || native != after+2 {
		t.Fatalf("%d native_in records, want %d; droppedBytes %d, want 0; notes %s", native, after+2, d, gjson.GetBytes(end, "notes").Raw)
	}
	if took < 200*time.Millisecond {
		t.Logf("the recording took only %v: the stall timeout was not put to the test", took)
	}
	if !strings.Contains(string(end), `"cleanEnd":true`) {
		t.Errorf("capture.end: %s", end)
	}
}

// TestQueueDropsOnlyWhenStalled fills a queue nobody takes from: while the
// pipeline is not waiting on anything (it is busy), a push waits as long as
// it must; once a write of the capture file has been under way for the
// stall timeout, the push gives up and the bytes are counted as dropped,
// and they are reported as a gap before the next chunk that fits.
func TestQueueDropsOnlyWhenStalled(t *testing.T) {
	w := newWaits()
	q := newQueue(10, 30*time.Millisecond, w, time.Now)
	if !q.push(streamStdout, []byte("0123456789")) {
		t.Fatal("the first push was dropped")
	}
	pushed := make(chan bool, 1)
	go func() { pushed <- q.push(streamStdout, []byte("abc\n")) }()
	select {
	case ok := <-pushed:
		t.Fatalf("a push into a full queue returned %v while the pipeline was busy", ok)
	case <-time.After(150 * time.Millisecond): // five stall timeouts
	}
	w.begin(waitFile)
	select {
	case ok := <-pushed:
		if ok {
			t.Fatal("the push into a full queue of a stalled pipeline was queued")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the push still waits 5 s after the pipeline stalled")
	}
	w.end(waitFile)
	items, _ := q.take()
	for _, c := range items {
		q.done(len(c.data))
	}
	if !q.push(streamStdout, []byte("def\n")) {
		t.Fatal("a push into an empty queue was dropped")
	}
	items, _ = q.take()
	if len(items) != 2 || items[0].gapBytes != 4 || items[0].gapNewlines != 1 || !items[0].gapEndsLine || string(items[1].data) != "def\n" {
		t.Fatalf("after the drop the queue holds %+v, want a gap of 4 bytes and 1 line, then def", items)
	}
}
