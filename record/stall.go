package record

import (
	"io"
	"sync/atomic"
	"time"
)

// What holds a full queue back, and when it gives up (see queue.push):
// the pipeline is stalled when it has been waiting on the outside world
// for the stall timeout: a write of the capture file that does not return
// (a full disk that blocks, a FIFO nobody reads), or a call of the live
// renderer or the observer that does not return. Its own work is progress
// however long it takes: redacting and normalizing a line of many MiB on
// a loaded machine can take seconds, and dropping output because of it
// would lose what a merely slow capture must keep (the queue holds the
// child back meanwhile, as it does for any slow pipeline).

// waitKind names one of the pipeline's ways of waiting on the outside
// world; each is timed on its own, since two can be under way at once (the
// capture writer's background flush while the renderer runs).
type waitKind int

const (
	waitFile waitKind = iota // a write of the capture file
	waitCall                 // the renderer, the observer, a console warning
	numWaits
)

// waits times the pipeline's waits on the outside world.
type waits struct {
	base time.Time
	// since is, per kind, when the wait under way began, in nanoseconds
	// after base plus one; 0 when none is.
	since [numWaits]atomic.Int64
}

func newWaits() *waits { return &waits{base: time.Now()} }

func (w *waits) begin(k waitKind) { w.since[k].Store(int64(time.Since(w.base)) + 1) }
func (w *waits) end(k waitKind)   { w.since[k].Store(0) }

// longest is how long the oldest wait under way has lasted (0: none).
func (w *waits) longest() time.Duration {
	now := int64(time.Since(w.base)) + 1
	var d int64
	for i := range w.since {
		if s := w.since[i].Load(); s != 0 && now-s > d {
			d = now - s
		}
	}
	return time.Duration(d)
}

// timedWriter times every write of w as a wait of kind k.
type timedWriter struct {
	w    io.Writer
	wait *waits
	k    waitKind
}

func (t timedWriter) Write(p []byte) (int, error) {
	t.wait.begin(t.k)
	defer t.wait.end(t.k)
	return t.w.Write(p)
}
