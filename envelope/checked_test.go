package envelope

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"
)

// TestAppendCheckedLine: for every valid JSON line of the corpus, and
// valid JSON lines that are not bare (surrounded by blanks, a trailing
// "\r", a scalar, invalid UTF-8 in a string), AppendCheckedLine gives what
// AppendNativeLine gives.
func TestAppendCheckedLine(t *testing.T) {
	lines := [][]byte{
		[]byte(` {"a":1}`), []byte(`{"a":1} `), []byte("{\"a\":1}\r"), []byte(`"text"`), []byte(`12`),
		[]byte("{\"a\":\"\xff\xfe\"}"), []byte(`[1,2]`), []byte(`{}`),
	}
	files, _ := filepath.Glob("../testdata/corpus/*/*.stdout.jsonl")
	if len(files) == 0 {
		t.Fatal("no corpus stdout files")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, bytes.Split(b, []byte("\n"))...)
	}
	checked := 0
	for _, l := range lines {
		if !gjson.ValidBytes(l) {
			continue
		}
		checked++
		want, wk := AppendNativeLine(nil, l)
		got, gk := AppendCheckedLine(nil, l)
		if gk != wk || !bytes.Equal(got, want) {
			t.Errorf("%q: AppendCheckedLine gives %v %q, AppendNativeLine %v %q", l, gk, got, wk, want)
		}
	}
	if checked < 100 {
		t.Fatalf("only %d valid JSON lines compared", checked)
	}
}
