package capture

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDurableFileSyncsAsItGrows writes a file of a few times syncEvery
// through durableFile: the bytes are the ones written, in order, the
// background syncer ran while they were written (so the sync at the end
// has little left), and Sync and Close stop it.
func TestDurableFileSyncsAsItGrows(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "c.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	d := newDurableFile(f, f)
	var want bytes.Buffer
	piece := make([]byte, 64<<10)
	for i := 0; want.Len() < 3*syncEvery+1; i++ {
		for j := range piece {
			piece[j] = byte('a' + (i+j)%26)
		}
		if _, err := d.Write(piece); err != nil {
			t.Fatal(err)
		}
		want.Write(piece)
	}
	if err := d.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if n := d.syncs.Load(); n < 1 {
		t.Errorf("background syncs while writing %d bytes: %d, want at least 1", want.Len(), n)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("Close after Sync: %v", err)
	}
	got, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("file holds %d bytes, not the %d written", len(got), want.Len())
	}
}

// TestDurableFileOnAPipe: a pipe cannot be synced, so no background
// syncer starts for one, and writes pass through unchanged.
func TestDurableFileOnAPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	d := newDurableFile(w, w)
	got := make(chan []byte)
	go func() {
		var b bytes.Buffer
		b.ReadFrom(r)
		got <- b.Bytes()
	}()
	piece := bytes.Repeat([]byte("x"), 1<<20)
	for range syncEvery/len(piece) + 1 {
		if _, err := d.Write(piece); err != nil {
			t.Fatal(err)
		}
	}
	if d.kick != nil {
		t.Error("a background syncer started for a pipe")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(<-got); n != (syncEvery/len(piece)+1)*len(piece) {
		t.Errorf("the pipe carried %d bytes", n)
	}
}
