package source

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// FuzzOpenStdin sniffs arbitrary input on standard input: Open must not
// panic, and whatever is not a fixture must be handed out byte for byte.
func FuzzOpenStdin(f *testing.F) {
	for _, p := range []string{rawFile, "../testdata/corpus/codex/tools.stdout.jsonl", "../testdata/corpus/opencode/serve-tools.stdout.jsonl"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("{\n  \"name\": \"x\"\n}\n"))
	f.Add([]byte(`{"schemaVersion":1,"stage":"meta"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := Open("-", bytes.NewReader(data))
		if err != nil {
			return
		}
		got, err := io.ReadAll(in.Reader())
		if err != nil {
			t.Fatal(err)
		}
		if in.Kind != KindFixture && !bytes.Equal(got, data) {
			t.Errorf("kind %v: read %d bytes, want the %d given", in.Kind, len(got), len(data))
		}
	})
}
