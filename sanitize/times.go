package sanitize

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// EpochUnix is the instant a sanitized capture starts at, in Unix seconds
// (2000-01-01T00:00:00Z): times inside payloads are moved so that the
// capture's first record falls on it, keeping the distances between them
// and the format each was written in.
const EpochUnix = 946684800

// Epoch is EpochUnix as a time in UTC.
func Epoch() time.Time { return time.Unix(EpochUnix, 0).UTC() }

var (
	isoRe    = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?Z$`)
	offsetRe = regexp.MustCompile(`^[+-][0-9]+\.[0-9]{3}s$`)
)

// timeKeys name number fields that hold Unix milliseconds (opencode's
// timestamp, time.created/updated/start/end, session.status next).
var timeKeys = map[string]bool{"timestamp": true, "created": true, "updated": true, "start": true,
	"end": true, "completed": true, "compacted": true, "next": true, "time": true, "initialized": true}

// clock turns the times of one capture into times relative to its start.
type clock struct {
	start time.Time // zero until the first record; Epoch for sanitized input
	set   bool
	drop  bool
	// lastIn and lastOut are envelope's last answer: the records made from
	// one line share its timestamp.
	lastIn, lastOut string
}

// begin fixes the capture start from the first record's timestamp. A
// capture whose first timestamp is not absolute was sanitized before: its
// payload times already count from Epoch.
func (c *clock) begin(ts string) {
	if c.set {
		return
	}
	c.set = true
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		c.start = t
	} else {
		c.start = Epoch()
	}
}

// envelope returns the sanitized timestamp field: an offset from the start
// ("+1.250s"), or "" when times are dropped or the value is unreadable.
func (c *clock) envelope(ts string) string {
	if c.drop {
		return ""
	}
	if ts == c.lastIn && ts != "" {
		return c.lastOut
	}
	out := c.offset(ts)
	c.lastIn, c.lastOut = ts, out
	return out
}

func (c *clock) offset(ts string) string {
	if len(ts) > 0 && (ts[0] == '+' || ts[0] == '-') && offsetRe.MatchString(ts) {
		return ts
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ""
	}
	return formatOffset(t.Sub(c.start))
}

// formatOffset writes d as "+S.mmms" (milliseconds, truncated).
func formatOffset(d time.Duration) string {
	ms := d.Milliseconds()
	b := make([]byte, 0, 24)
	if ms < 0 {
		b, ms = append(b, '-'), -ms
	} else {
		b = append(b, '+')
	}
	b = strconv.AppendInt(b, ms/1000, 10)
	f := ms % 1000
	b = append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10), 's')
	return string(b)
}

// shift moves an absolute time found in a payload.
func (c *clock) shift(t time.Time) time.Time {
	if c.drop {
		return Epoch()
	}
	return Epoch().Add(t.Sub(c.start))
}

// isoString rewrites a payload string that is an RFC 3339 UTC time,
// keeping its number of fractional digits.
func (c *clock) isoString(s string) (string, bool) {
	if len(s) < 20 || len(s) > 30 || !isoRe.MatchString(s) {
		return s, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s, false
	}
	layout := "2006-01-02T15:04:05Z"
	if dot := strings.IndexByte(s, '.'); dot >= 0 {
		layout = "2006-01-02T15:04:05." + strings.Repeat("0", len(s)-dot-2) + "Z"
	}
	return c.shift(t).UTC().Format(layout), true
}

// millis rewrites an integer number of Unix milliseconds under a time key.
func (c *clock) millis(key, raw string) (string, bool) {
	if !timeKeys[key] || len(raw) != 13 {
		return raw, false
	}
	ms, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || ms < 1e12 {
		return raw, false
	}
	n := c.shift(time.UnixMilli(ms)).UnixMilli()
	if n < 0 {
		return raw, false
	}
	return strconv.FormatInt(n, 10), true
}
