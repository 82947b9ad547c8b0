package main

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
)

// progressAfter is how long a command works before it shows progress:
// work that ends sooner shows nothing.
const progressAfter = time.Second

// progressReader shows, on a terminal, how much of an input a command has
// read: bytes (of the total when the input is a file of known size),
// records (lines) and the rate, in the style of evcap export's display.
// It is created for every input but draws nothing until progressAfter has
// passed, and nothing at all when w is not a terminal.
type progressReader struct {
	r       io.Reader
	w       io.Writer
	total   int64 // -1 when unknown
	start   time.Time
	after   time.Duration
	now     func() time.Time
	bar     *progressbar.ProgressBar
	pending int64 // bytes read before the bar was drawn
	records int64
}

// progressTo is where a command shows progress: standard error, unless
// the command's output goes to standard output and that is a terminal too,
// where a progress line would break into the output (nil then).
func progressTo(s streams, toStdout bool) io.Writer {
	if toStdout && writerIsTerminal(s.out) {
		return nil
	}
	return s.err
}

func writerIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

// withProgress wraps r with a progress display on errw when errw is a
// terminal (see progressTo); path, when it names a regular file, gives the total. It
// returns r itself and a no-op when there is nothing to show.
func withProgress(r io.Reader, errw io.Writer, path string) (io.Reader, func()) {
	if !writerIsTerminal(errw) {
		return r, func() {}
	}
	total := int64(-1)
	if path != "" && path != "-" {
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
			total = st.Size()
		}
	}
	p := newProgressReader(r, errw, total, progressAfter, time.Now)
	if sk, ok := r.(io.Seeker); ok {
		return progressReadSeeker{p, sk}, p.finish
	}
	return p, p.finish
}

// progressReadSeeker keeps the Seek of a file a library reads twice
// (sanitize learns the project root first): going back to the start
// starts the count again.
type progressReadSeeker struct {
	*progressReader
	s io.Seeker
}

func (p progressReadSeeker) Seek(off int64, whence int) (int64, error) {
	n, err := p.s.Seek(off, whence)
	if err == nil && n == 0 {
		p.records, p.pending = 0, 0
		if p.bar != nil {
			_ = p.bar.Set64(0)
		}
	}
	return n, err
}

func newProgressReader(r io.Reader, w io.Writer, total int64, after time.Duration, now func() time.Time) *progressReader {
	return &progressReader{r: r, w: w, total: total, start: now(), after: after, now: now}
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.records += int64(bytes.Count(b[:n], []byte{'\n'}))
		p.pending += int64(n)
		if p.bar == nil && p.now().Sub(p.start) >= p.after {
			p.bar = progressbar.NewOptions64(p.total, progressbar.OptionSetWriter(p.w),
				progressbar.OptionShowBytes(true), progressbar.OptionShowTotalBytes(true),
				progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionSpinnerType(14),
				progressbar.OptionClearOnFinish())
		}
		if p.bar != nil {
			p.bar.Describe(formatRecords(p.records))
			_ = p.bar.Add64(p.pending)
			p.pending = 0
		}
	}
	return n, err
}

// finish clears the display, if one was drawn.
func (p *progressReader) finish() {
	if p.bar != nil {
		_ = p.bar.Clear()
		p.bar = nil
	}
}

func formatRecords(n int64) string {
	if n == 1 {
		return "1 record"
	}
	return strconv.FormatInt(n, 10) + " records"
}
