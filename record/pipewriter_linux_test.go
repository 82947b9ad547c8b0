package record

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestPipeWriter writes chunks of many sizes (one byte, a line, a pipe
// atom, more than a pipe holds) through newPipeWriter into a pipe and a
// Unix socket pair, read by a reader that is quick and by one that makes
// the writer wait: every byte arrives, in order; the raw path carries the
// writes while the reader keeps up; os.Pipe's descriptor stays
// non-blocking (File.Fd would have made it blocking); a file is written
// as it is.
func TestPipeWriter(t *testing.T) {
	var want []byte
	var chunks [][]byte
	for i, n := range []int{1, 120, 4096, 5000, 200, 70000, 3, 4097} {
		c := bytes.Repeat([]byte{byte('a' + i)}, n)
		chunks = append(chunks, c)
		want = append(want, c...)
	}
	pair := func(t *testing.T, kind string) (r, w *os.File) {
		if kind == "pipe" {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			return r, w
		}
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		return os.NewFile(uintptr(fds[0]), "sock-r"), os.NewFile(uintptr(fds[1]), "sock-w")
	}
	for _, kind := range []string{"pipe", "socket"} {
		for _, slow := range []bool{false, true} {
			r, w := pair(t, kind)
			got := make(chan []byte)
			go func() {
				if slow {
					time.Sleep(100 * time.Millisecond)
				}
				b, _ := io.ReadAll(r)
				got <- b
			}()
			pw := newPipeWriter(w)
			p, ok := pw.(*pipeWriter)
			if !ok {
				t.Fatalf("%s: newPipeWriter gave %T", kind, pw)
			}
			for _, c := range chunks {
				if n, err := pw.Write(c); n != len(c) || err != nil {
					t.Fatalf("%s: Write of %d bytes: %d, %v", kind, len(c), n, err)
				}
				if !slow {
					time.Sleep(2 * time.Millisecond) // the reader catches up
				}
			}
			if kind == "pipe" && !nonBlocking(t, w) {
				t.Errorf("the pipe's descriptor was switched to blocking")
			}
			w.Close()
			b := <-got
			r.Close()
			if !bytes.Equal(b, want) {
				t.Fatalf("%s, slow reader %v: %d bytes arrived, want %d (first difference at %d)", kind, slow, len(b), len(want), firstDifference(b, want))
			}
			if !slow && p.raw < int64(len(want))/2 {
				t.Errorf("%s: only %d of %d bytes written raw while the reader kept up", kind, p.raw, len(want))
			}
			t.Logf("%s, slow reader %v: %d of %d bytes raw", kind, slow, p.raw, len(want))
		}
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if pw := newPipeWriter(f); pw != io.Writer(f) {
		t.Errorf("a regular file got %T", pw)
	}
}

func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// nonBlocking reports whether f's descriptor has O_NONBLOCK set, read
// without File.Fd (which clears it).
func nonBlocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	nb := false
	if err := rc.Control(func(fd uintptr) {
		fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nb = err == nil && fl&unix.O_NONBLOCK != 0
	}); err != nil {
		t.Fatal(err)
	}
	return nb
}
