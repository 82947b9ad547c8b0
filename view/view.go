package view

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evcap/evcap/envelope"
)

//go:embed assets/report.html
var pageTemplate string

//go:embed assets/view.css
var pageCSS string

//go:embed assets/view.js
var pageJS string

// DefaultMaxPayload is the largest payload embedded whole; larger ones (a
// tool output of many MiB) are replaced by an excerpt so the page stays
// quick to open.
const DefaultMaxPayload = 256 << 10

// excerptBytes is how much of a shortened payload the page keeps.
const excerptBytes = 4096

// Options configure Write.
type Options struct {
	// Title is the page title (the capture's file name, say).
	Title string
	// MaxPayload overrides DefaultMaxPayload when positive.
	MaxPayload int
}

// Stats says what Write put into the page.
type Stats struct {
	Records   int64
	Truncated int // payloads replaced by an excerpt
	TornLine  bool
}

// Write is WriteContext with a context that is never done.
func Write(w io.Writer, r io.Reader, name string, opts Options) (Stats, error) {
	return WriteContext(context.Background(), w, r, name, opts)
}

// WriteContext reads the capture r (name is used in errors) and writes the
// page to w. A torn last line is left out and reported in Stats; any other
// bad line is an error naming its line. Once ctx is done (checked before
// each record) it stops and returns ctx's cause, having written part of a
// page: write to a temporary file and rename it only on success.
func WriteContext(ctx context.Context, w io.Writer, r io.Reader, name string, opts Options) (Stats, error) {
	if opts.MaxPayload <= 0 {
		opts.MaxPayload = DefaultMaxPayload
	}
	var st Stats
	head, rest, ok := strings.Cut(pageTemplate, "{{DATA}}")
	if !ok {
		return st, errors.New("view: page template has no {{DATA}}")
	}
	title := html.EscapeString(opts.Title)
	fill := func(s string) string {
		s = strings.ReplaceAll(s, "{{TITLE}}", title)
		s = strings.Replace(s, "{{CSS}}", pageCSS, 1)
		return strings.Replace(s, "{{JS}}", safeScript(pageJS), 1)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(fill(head))

	bw.WriteString(`{"name":`)
	writeSafe(bw, envelope.AppendJSONString(nil, opts.Title))
	bw.WriteString(`,"records":[`)
	rd := envelope.NewReader(r, name, envelope.ReaderOptions{})
	var clock offsets
	var buf []byte
	for {
		if err := context.Cause(ctx); err != nil {
			return st, err
		}
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, envelope.ErrTornLine) {
			st.TornLine = true
			continue
		}
		if err != nil {
			return st, fmt.Errorf("view: %w", err)
		}
		if st.Records > 0 {
			bw.WriteByte(',')
		}
		buf = buf[:0]
		buf = append(buf, '[')
		buf = strconv.AppendInt(buf, rec.Sequence, 10)
		buf = append(buf, ',')
		if ms, ok := clock.millis(rec.Timestamp); ok {
			buf = strconv.AppendInt(buf, ms, 10)
		} else {
			buf = append(buf, "null"...)
		}
		buf = append(buf, ',')
		buf = envelope.AppendJSONString(buf, string(rec.Stage))
		buf = append(buf, ',')
		buf = envelope.AppendJSONString(buf, rec.EventType)
		buf = append(buf, ',')
		if len(rec.Cause) == 0 {
			buf = append(buf, "null"...)
		} else {
			buf = append(buf, '[')
			for i, c := range rec.Cause {
				if i > 0 {
					buf = append(buf, ',')
				}
				buf = strconv.AppendInt(buf, c, 10)
			}
			buf = append(buf, ']')
		}
		buf = append(buf, ',')
		payload := []byte(rec.Payload)
		if len(payload) == 0 {
			payload = []byte("null")
		}
		if len(payload) > opts.MaxPayload {
			st.Truncated++
			buf = appendExcerpt(buf, payload)
		} else {
			buf = append(buf, payload...)
		}
		buf = append(buf, ']')
		writeSafe(bw, buf)
		st.Records++
	}
	fmt.Fprintf(bw, `],"truncated":%d}`, st.Truncated)
	bw.WriteString(fill(rest))
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("view: write: %w", err)
	}
	return st, nil
}

// appendExcerpt stands in for a payload too large to embed: its size and
// its first bytes as a string, cut on a rune boundary.
func appendExcerpt(dst, payload []byte) []byte {
	head := payload[:min(excerptBytes, len(payload))]
	for len(head) > 0 && !utf8.Valid(head) {
		head = head[:len(head)-1]
	}
	dst = append(dst, `{"evcapExcerpt":true,"bytes":`...)
	dst = strconv.AppendInt(dst, int64(len(payload)), 10)
	dst = append(dst, `,"head":`...)
	dst = envelope.AppendJSONString(dst, string(head))
	return append(dst, '}')
}

// writeSafe writes JSON into the page's data element with every "<"
// escaped: in valid JSON "<" occurs only inside strings, where \u003c
// means the same, and without it no "</script" or "<!--" can appear.
func writeSafe(w *bufio.Writer, b []byte) {
	for {
		i := bytes.IndexByte(b, '<')
		if i < 0 {
			w.Write(b)
			return
		}
		w.Write(b[:i])
		w.WriteString(`\u003c`)
		b = b[i+1:]
	}
}

// safeScript guards the inlined script the same way: it must not contain
// a closing tag.
func safeScript(js string) string {
	return strings.ReplaceAll(js, "</", `<\/`)
}

// offsets turns record timestamps into milliseconds from the first one.
// Sanitized captures hold offsets already ("+1.250s").
type offsets struct {
	base    time.Time
	hasBase bool
}

func (o *offsets) millis(ts string) (int64, bool) {
	t, offset, err := envelope.ParseTimestamp(ts)
	if err != nil {
		return 0, false
	}
	if offset {
		return t.Sub(envelope.OffsetOrigin()).Milliseconds(), true
	}
	if !o.hasBase {
		o.base, o.hasBase = t, true
	}
	return t.Sub(o.base).Milliseconds(), true
}
