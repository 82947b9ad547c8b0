package capture

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
)

// syncEvery is how many bytes are written between two background syncs of
// a capture file.
const syncEvery = 8 << 20

// durableFile is what a capture file's records are written through, and
// what closes it.
//
// A capture is made durable when it is closed (envelope.Writer.Close calls
// Sync): the run it holds cannot be made again. Left alone, the kernel and
// the disk below it hold most of a fast run's output in their caches until
// that sync, which then waits for all of it: a 170 MB capture's final
// fsync took 0.25 s of record's 2 s on a virtual disk, and starting the
// kernel's writeback early (sync_file_range) left it at 0.17 s, because the
// disk's own cache is flushed only by a sync. So every syncEvery bytes a
// goroutine of its own syncs the file's data (fdatasync) while the writer
// goes on, and the sync at the end finds a few MB left (3-4 ms there).
// That only makes data durable earlier than before, never later, and the
// writer never waits for a background sync: a sync still running when
// syncEvery more bytes come is not asked again.
type durableFile struct {
	w       io.Writer // the file, or Options.WrapFile's wrapper of it
	f       *os.File
	pending int // bytes written since the last background sync was asked

	bg    bool // f is a regular file, which a sync writes to disk
	kick  chan struct{}
	done  chan struct{}
	stop  sync.Once
	syncs atomic.Int64 // background syncs done (tests)
}

func newDurableFile(f *os.File, w io.Writer) *durableFile {
	d := &durableFile{w: w, f: f}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		d.bg = true
	}
	return d
}

func (d *durableFile) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	if !d.bg {
		return n, err
	}
	d.pending += n
	if d.pending >= syncEvery {
		d.pending = 0
		if d.kick == nil {
			d.kick, d.done = make(chan struct{}, 1), make(chan struct{})
			go d.syncer()
		}
		select {
		case d.kick <- struct{}{}:
		default: // one is asked already
		}
	}
	return n, err
}

// syncer syncs the file's data each time it is asked, until stopped. A
// file that cannot be synced is not asked again: Sync reports that.
func (d *durableFile) syncer() {
	defer close(d.done)
	failed := false
	for range d.kick {
		if !failed {
			failed = fdatasync(d.f) != nil
			d.syncs.Add(1)
		}
	}
}

// stopSyncer ends the background syncs and waits for the one running.
func (d *durableFile) stopSyncer() {
	d.stop.Do(func() {
		if d.kick != nil {
			close(d.kick)
			<-d.done
		}
	})
}

// Sync makes the file durable.
func (d *durableFile) Sync() error {
	d.stopSyncer()
	return d.f.Sync()
}

// Close closes the file, after the background syncs.
func (d *durableFile) Close() error {
	d.stopSyncer()
	return d.f.Close()
}
