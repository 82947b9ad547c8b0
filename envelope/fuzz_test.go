package envelope

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/evcap/evcap/internal/lines"
)

// corpusLines returns up to n lines from each real CLI capture in the
// repository's copy of the corpus.
func corpusLines(t testing.TB, n int) [][]byte {
	t.Helper()
	files, err := filepath.Glob("../testdata/corpus/*/*.stdout.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files found: %v", err)
	}
	var out [][]byte
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		lr := lines.NewReader(f)
		for i := 0; i < n; i++ {
			l, err := lr.Next()
			if err != nil {
				break
			}
			out = append(out, append([]byte(nil), l...))
		}
		f.Close()
	}
	return out
}

// FuzzReader feeds arbitrary bytes to the Reader: it must never panic, and
// every record it accepts must survive a write/read round trip unchanged.
func FuzzReader(f *testing.F) {
	for i, l := range corpusLines(f, 6) {
		payload, _ := EncodeNativeLine(l)
		rec := AppendRecord(nil, &Record{SchemaVersion: 1, CaptureID: "C", Sequence: int64(i + 1), Timestamp: "t",
			Provider: "p", Stage: StageNativeIn, EventType: "e", Payload: payload, Cause: []int64{1}})
		f.Add(rec)
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), "fuzz", ReaderOptions{})
		for {
			rec, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				continue
			}
			line := AppendRecord(nil, rec)
			again, err := ParseRecord(bytes.TrimSuffix(line, []byte("\n")))
			if err != nil {
				t.Fatalf("re-read of a written record failed: %v\n%s", err, line)
			}
			if !bytes.Equal(AppendRecord(nil, again), line) {
				t.Fatalf("round trip changed the record:\n%s", line)
			}
		}
	})
}
