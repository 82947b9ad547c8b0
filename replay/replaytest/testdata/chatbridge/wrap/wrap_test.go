package wrap_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"example.com/chatbridge/wrap"
)

// TestGolden folds testdata/in.txt to 40 columns and compares with
// testdata/in.golden; EVCAP_UPDATE=1 rewrites it, like every golden in
// this module.
func TestGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "in.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(wrap.Lines(string(in), 40), "\n") + "\n"
	golden := filepath.Join("testdata", "in.golden")
	if os.Getenv("EVCAP_UPDATE") == "1" {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (write it with EVCAP_UPDATE=1 go test ./wrap)", err)
	}
	if string(want) != got {
		t.Errorf("wrap.Lines differs from %s:\n got: %q\nwant: %q", golden, got, want)
	}
}
