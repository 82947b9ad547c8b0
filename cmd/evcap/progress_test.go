package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// fakeClock advances by step on every reading.
type fakeClock struct {
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time { c.t = c.t.Add(c.step); return c.t }

func TestProgressReaderShowsBytesAndRecordsAfterAWhile(t *testing.T) {
	input := strings.Repeat(`{"sequence":1}`+"\n", 5000)
	var screen bytes.Buffer
	clock := &fakeClock{t: time.Unix(0, 0), step: 300 * time.Millisecond}
	p := newProgressReader(iotestOneByteChunks(strings.NewReader(input), 4096), &screen, int64(len(input)), time.Second, clock.now)
	got, err := io.ReadAll(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != input {
		t.Fatalf("progressReader changed the bytes: %d read, want %d", len(got), len(input))
	}
	if p.records != 5000 {
		t.Errorf("counted %d records, want 5000", p.records)
	}
	if !strings.Contains(screen.String(), "records") {
		t.Errorf("progress display %q lacks the records", screen.String())
	}
	if p.bar == nil {
		t.Fatal("no progress display after more than a second of work")
	}
	if st := p.bar.State(); st.CurrentNum != int64(len(input)) || st.Max != int64(len(input)) {
		t.Errorf("display at %d of %d bytes, want %d of %d", st.CurrentNum, st.Max, len(input), len(input))
	}
	p.finish()
}

func TestProgressReaderQuietForShortWork(t *testing.T) {
	var screen bytes.Buffer
	clock := &fakeClock{t: time.Unix(0, 0), step: time.Millisecond}
	p := newProgressReader(strings.NewReader(strings.Repeat("x\n", 1000)), &screen, -1, time.Second, clock.now)
	if _, err := io.ReadAll(p); err != nil {
		t.Fatal(err)
	}
	p.finish()
	if screen.Len() != 0 {
		t.Errorf("work shorter than a second drew %q", screen.String())
	}
}

func TestWithProgressLeavesNonTerminalAlone(t *testing.T) {
	r := strings.NewReader("x")
	got, finish := withProgress(r, &bytes.Buffer{}, "")
	defer finish()
	if got != io.Reader(r) {
		t.Errorf("withProgress wrapped a reader whose stderr is not a terminal")
	}
}

// iotestOneByteChunks hands out at most n bytes per Read, as a file does
// in blocks.
func iotestOneByteChunks(r io.Reader, n int) io.Reader { return &chunked{r: r, n: n} }

type chunked struct {
	r io.Reader
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.r.Read(p)
}
