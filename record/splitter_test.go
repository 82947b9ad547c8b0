package record

import (
	"bytes"
	"testing"
	"time"
)

// TestSplitterGrowsLongLineOnce feeds a 10 MiB line in 64 KiB chunks, as a
// fast child's reads queue it, and checks that the line comes out whole and
// that its buffer was grown only twice: once for what the first batch of
// chunks holds of it, once to its exact size when the batch holding its
// newline is taken (append alone grows it twenty-one times).
func TestSplitterGrowsLongLineOnce(t *testing.T) {
	const chunkSize = 64 << 10
	line := bytes.Repeat([]byte("0123456789abcdef"), 10<<20/16)
	data := append(append([]byte(nil), line...), '\n')
	var chunks [][]byte
	for d := data; len(d) > 0; {
		n := min(chunkSize, len(d))
		chunks = append(chunks, d[:n])
		d = d[n:]
	}
	// Two takes: the first holds the first 8 MiB of the line.
	split := 8 << 20 / chunkSize
	batches := [][][]byte{chunks[:split], chunks[split:]}

	var s splitter
	var told []int // what Options.LongLine would be told
	s.longLine = func(n int) { told = append(told, n) }
	var got [][]byte
	grows := 0
	for _, b := range batches {
		for i, c := range b {
			ahead := func() (n int, ends bool) {
				for _, next := range b[i+1:] {
					if j := bytes.IndexByte(next, '\n'); j >= 0 {
						return n + j, true
					}
					n += len(next)
				}
				return n, false
			}
			before := cap(s.pending)
			s.feed(c, ahead, func(l []byte) { got = append(got, append([]byte(nil), l...)) }, func(int64, int64) {})
			if cap(s.pending) != before && cap(s.pending) != 0 {
				grows++
			}
		}
	}
	if len(got) != 1 || !bytes.Equal(got[0], line) {
		t.Fatalf("got %d lines, want the one line of %d bytes", len(got), len(line))
	}
	if grows > 2 {
		t.Errorf("the line's buffer grew %d times, want at most 2", grows)
	}
	// LongLine hears of the line while it is assembled, and of its whole
	// length once its end is queued; a short line is not reported.
	if len(told) == 0 || told[len(told)-1] != len(line) || told[0] < longLineBytes || told[0] > len(line) {
		t.Errorf("LongLine was told %v, want lengths from %d up to the line's %d", told, longLineBytes, len(line))
	}
	told = nil
	for d := append(bytes.Repeat([]byte("y"), longLineBytes-1), '\n'); len(d) > 0; d = d[min(chunkSize, len(d)):] {
		s.feed(d[:min(chunkSize, len(d))], nil, func([]byte) {}, func(int64, int64) {})
	}
	if len(told) != 0 {
		t.Errorf("LongLine told %v of a line under longLineBytes", told)
	}
}

// TestQueueReusesChunkBuffers checks that a chunk buffer released by the
// pipeline is used again for the next large chunk, and that released
// chunks forget their bytes.
func TestQueueReusesChunkBuffers(t *testing.T) {
	q := newQueue(1<<20, DefaultStallTimeout, newWaits(), time.Now)
	data := bytes.Repeat([]byte("x"), 40<<10)
	q.push(streamStdout, data)
	items, _ := q.take()
	if len(items) != 1 || !items[0].pooled {
		t.Fatalf("a %d-byte chunk was not given a pooled buffer: %+v", len(data), items)
	}
	first := &items[0].data[:1][0]
	q.done(len(items[0].data))
	q.release(&items[0])
	if items[0].data != nil {
		t.Fatal("a released chunk still holds its bytes")
	}
	q.push(streamStdout, []byte(string(data[:30<<10])+"\n"))
	items, _ = q.take()
	if len(items) != 1 || &items[0].data[:1][0] != first {
		t.Fatal("the released buffer was not reused")
	}
	if !bytes.Equal(items[0].data[:30<<10], data[:30<<10]) || len(items[0].data) != 30<<10+1 {
		t.Fatal("the reused buffer does not hold the new chunk")
	}
}
