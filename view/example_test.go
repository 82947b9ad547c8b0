package view_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/evcap/evcap/view"
)

// Write turns a capture into one HTML page; the records are embedded as
// JSON with "<" escaped.
func Example() {
	capture := `{"schemaVersion":1,"captureId":"01JDXKQ5T8M3V9ZQ7G2H4N6P8R","sequence":1,"timestamp":"+0.000s","provider":"codex","sessionId":"","turnId":"","stage":"native_in","eventType":"error","payload":{"type":"error","message":"</script>"},"redactions":[]}` + "\n"
	var page bytes.Buffer
	st, err := view.Write(&page, strings.NewReader(capture), "run.jsonl", view.Options{Title: "run.jsonl"})
	fmt.Println(st.Records, err)
	fmt.Println(strings.Contains(page.String(), `"message":"\u003c/script>"`))
	// Output:
	// 1 <nil>
	// true
}
