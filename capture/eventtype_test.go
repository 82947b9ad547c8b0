package capture

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/evcap/evcap/envelope"
)

// TestJSONEventTypeLikeNativeEventType checks that the eventType a
// Capturer gives a native line (read in one pass, names reused) is what
// NativeEventType says, on awkward lines and on every line of the corpus
// stdouts, each asked twice so that the reused names are checked too.
func TestJSONEventTypeLikeNativeEventType(t *testing.T) {
	lines := []string{
		`{"type":"system","subtype":"init"}`, `{"subtype":"init","type":"system"}`, `{"type":"a","type":"b"}`,
		`{"typ\u0065":"escaped key","subtype":"x"}`, `{"type":"esc\"aped","subtype":"s\u00e9"}`, `{"type":7,"subtype":"n"}`,
		`{"type":true}`, `{"type":null,"subtype":"x"}`, `{"type":{"nested":1},"subtype":"o"}`, `{"type":"t","subtype":3}`,
		`{"type":"t","subtype":""}`, `{"type":""}`, `{"other":{"type":"inner"}}`, `[{"type":"in array"}]`, `{}`, `[]`,
		`{ "type" : "spaced" , "subtype" : "yes" }`, `{"type":"x","subtype":["a"]}`, `{"type":1e3}`, `{"type":-0.5}`,
		"not json", `{"type":"torn"`,
		// A subtype spelled with escapes, and lines that only mention one.
		`{"type":"system","sub\u0074ype":"init"}`, `{"type":"t","text":"a subtype of it"}`, `{"type":"t","x":"\u00e9"}`,
		`{"type":"t","sub\u0074yp\u0065":"both escaped","subtype":"plain"}`,
	}
	var all [][]byte
	for _, l := range lines {
		all = append(all, []byte(l))
	}
	files, _ := filepath.Glob("../testdata/corpus/*/*.stdout.jsonl")
	if len(files) == 0 {
		t.Fatal("no corpus stdouts found")
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			all = append(all, append([]byte(nil), sc.Bytes()...))
		}
		f.Close()
	}
	c := &Capturer{}
	for round := range 2 {
		for _, l := range all {
			want := envelope.EventNonJSON
			if _, kind := envelope.EncodeNativeLine(l); kind == envelope.NativeJSON {
				want = NativeEventType(l)
			}
			c.encMu.Lock()
			_, got := c.nativePayload(l, false)
			c.encMu.Unlock()
			if got != want {
				t.Fatalf("round %d: eventType of %.200q is %q, NativeEventType says %q", round, l, got, want)
			}
		}
	}
}
