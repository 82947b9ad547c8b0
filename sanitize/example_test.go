package sanitize_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/evcap/evcap/sanitize"
	"github.com/evcap/evcap/scan"
)

// A Gemini capture whose answer split a fake AWS key id across two deltas.
// (Records abridged from the corpus capture gemini/long-text.)
const exampleCapture = `{"schemaVersion":1,"captureId":"01JDXQ4ZP8V6S1N0W9H3B5C7D2","sequence":1,"timestamp":"2026-11-29T19:32:07.446Z","provider":"gemini","sessionId":"e413b72f-375b-4512-929d-38fc9f9ec4d4","turnId":"","stage":"native_in","eventType":"init","payload":{"type":"init","timestamp":"2026-11-29T19:32:07.446Z","session_id":"e413b72f-375b-4512-929d-38fc9f9ec4d4","model":"gemini-2.5-pro"},"redactions":[]}
{"schemaVersion":1,"captureId":"01JDXQ4ZP8V6S1N0W9H3B5C7D2","sequence":2,"timestamp":"2026-11-29T19:32:07.633Z","provider":"gemini","sessionId":"e413b72f-375b-4512-929d-38fc9f9ec4d4","turnId":"","stage":"native_in","eventType":"message","payload":{"type":"message","timestamp":"2026-11-29T19:32:07.633Z","role":"assistant","content":"key id AKIADYBVZXG2","delta":true},"redactions":[]}
{"schemaVersion":1,"captureId":"01JDXQ4ZP8V6S1N0W9H3B5C7D2","sequence":3,"timestamp":"2026-11-29T19:32:07.640Z","provider":"gemini","sessionId":"e413b72f-375b-4512-929d-38fc9f9ec4d4","turnId":"","stage":"native_in","eventType":"message","payload":{"type":"message","timestamp":"2026-11-29T19:32:07.640Z","role":"assistant","content":"4VDHLDSU next to it","delta":true},"redactions":[]}
`

func ExampleSanitize() {
	var out strings.Builder
	rep, err := sanitize.Sanitize(strings.NewReader(exampleCapture), "run.jsonl", &out, sanitize.Options{Home: "/home/u"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(out.String())
	fmt.Println(rep.Records, "records,", rep.Redactions, "ledger entries,", rep.Pseudonyms, "pseudonym")
	// Output:
	// {"schemaVersion":1,"captureId":"00000000000000000000000000","sequence":1,"timestamp":"+0.000s","provider":"gemini","sessionId":"session-0001","turnId":"","stage":"native_in","eventType":"init","payload":{"type":"init","timestamp":"2000-01-01T00:00:00.000Z","session_id":"session-0001","model":"gemini-2.5-pro"},"redactions":[]}
	// {"schemaVersion":1,"captureId":"00000000000000000000000000","sequence":2,"timestamp":"+0.187s","provider":"gemini","sessionId":"session-0001","turnId":"","stage":"native_in","eventType":"message","payload":{"type":"message","timestamp":"2000-01-01T00:00:00.187Z","role":"assistant","content":"key id [REDACTED:aws-access-key-id]","delta":true},"redactions":[{"rule":"aws-access-key-id","pointer":"/content","count":1,"originalLength":12}]}
	// {"schemaVersion":1,"captureId":"00000000000000000000000000","sequence":3,"timestamp":"+0.194s","provider":"gemini","sessionId":"session-0001","turnId":"","stage":"native_in","eventType":"message","payload":{"type":"message","timestamp":"2000-01-01T00:00:00.194Z","role":"assistant","content":" next to it","delta":true},"redactions":[{"rule":"aws-access-key-id","pointer":"/content","count":1,"originalLength":8}]}
	// 3 records, 2 ledger entries, 1 pseudonym
}

// A sanitized capture passes evcap scan (package scan), the check a
// fixture's CI runs; the raw one does not: its session id is volatile, and
// the access key id is split across two streamed deltas.
func Example_scan() {
	sc, err := scan.New(scan.Options{Home: "/home/u"})
	if err != nil {
		fmt.Println(err)
		return
	}
	raw, err := sc.Read(strings.NewReader(exampleCapture), "run.jsonl", scan.KindCapture)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range raw {
		fmt.Println(f.Line, f.Rule, f.Pointer, "("+f.Decoded+")")
	}
	var out bytes.Buffer
	if _, err := sanitize.Sanitize(strings.NewReader(exampleCapture), "run.jsonl", &out, sanitize.Options{Home: "/home/u"}); err != nil {
		fmt.Println(err)
		return
	}
	clean, err := sc.Read(&out, "run.jsonl", scan.KindCapture)
	fmt.Println(len(clean), "findings after sanitize", err)
	// Output:
	// 1 volatile-id /payload/session_id ()
	// 1 volatile-id /sessionId ()
	// 2 aws-access-key-id /payload/content (deltas)
	// 2 volatile-id /sessionId ()
	// 3 volatile-id /sessionId ()
	// 0 findings after sanitize <nil>
}
