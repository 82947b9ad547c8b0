//go:build unix

package record

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/evcap/evcap/envelope"
)

// TestOutputReplacesAnOldCapture: -o naming an existing capture writes
// the new capture in its place, whatever way the old one is let go: a
// large regular file (replaced by a new file of its mode, the old inode
// released in the background), a small one (truncated), a symlink (its
// target truncated and written, the link kept) and a file with a second
// hard link (truncated, so the other name sees the new capture too).
func TestOutputReplacesAnOldCapture(t *testing.T) {
	in, err := os.ReadFile(filepath.Join(corpus, "claude", "long-text-partial.stdout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	old := bytes.Repeat([]byte("old capture line that must not survive\n"), (2<<20)/39)
	if len(old) < replaceMin {
		t.Fatalf("the old capture (%d bytes) is below replaceMin (%d): the large case tests nothing", len(old), replaceMin)
	}
	record := func(t *testing.T, out string) {
		t.Helper()
		res, err := Stream(bytes.NewReader(in), Options{Provider: "claude", NewNormalizer: allNormalizers, Output: out})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("record: %v, exit %d", err, res.ExitCode)
		}
	}
	// isNew checks that path holds the new capture alone and returns its
	// inode.
	isNew := func(t *testing.T, path string) uint64 {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("old capture line")) {
			t.Fatalf("%s still holds the old capture's bytes", path)
		}
		recs := readCapture(t, path)
		n := 0
		for _, r := range recs {
			if r.Stage == envelope.StageNativeIn {
				n++
			}
		}
		if want := bytes.Count(in, []byte("\n")); n != want {
			t.Fatalf("%s: %d native_in records, want %d", path, n, want)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return st.Sys().(*syscall.Stat_t).Ino
	}
	inode := func(t *testing.T, path string) uint64 {
		t.Helper()
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return st.Sys().(*syscall.Stat_t).Ino
	}

	t.Run("large", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "c.jsonl")
		if err := os.WriteFile(out, old, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(out, 0o640); err != nil {
			t.Fatal(err)
		}
		before := inode(t, out)
		record(t, out)
		if after := isNew(t, out); after == before {
			t.Errorf("the large capture was truncated in place (inode %d), not replaced", after)
		}
		if st, _ := os.Stat(out); st.Mode().Perm() != 0o640 {
			t.Errorf("mode %v, want the old capture's 0640", st.Mode().Perm())
		}
		ents, _ := os.ReadDir(filepath.Dir(out))
		if len(ents) != 1 {
			t.Errorf("the directory holds %d entries, want the capture alone", len(ents))
		}
	})
	t.Run("small", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "c.jsonl")
		if err := os.WriteFile(out, old[:4096], 0o600); err != nil {
			t.Fatal(err)
		}
		before := inode(t, out)
		record(t, out)
		if after := isNew(t, out); after != before {
			t.Errorf("a small capture was replaced (inode %d -> %d), want it truncated", before, after)
		}
	})
	t.Run("symlink", func(t *testing.T) {
		dir := t.TempDir()
		target, link := filepath.Join(dir, "target.jsonl"), filepath.Join(dir, "link.jsonl")
		if err := os.WriteFile(target, old, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		record(t, link)
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the symlink is gone or replaced: %v, %v", st, err)
		}
		isNew(t, target)
	})
	t.Run("hardlink", func(t *testing.T) {
		dir := t.TempDir()
		out, other := filepath.Join(dir, "c.jsonl"), filepath.Join(dir, "other.jsonl")
		if err := os.WriteFile(out, old, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(out, other); err != nil {
			t.Fatal(err)
		}
		record(t, out)
		isNew(t, out)
		isNew(t, other)
	})
}
