package codex

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/evcap/evcap/event"
)

// codex has announced a retry of a failed model stream in two wordings:
//
//	Reconnecting... 1/2 (exceeded retry limit, last status: 429 Too Many Requests)   (0.5x and later)
//	stream error: exceeded retry limit, last status: 401 Unauthorized; retrying 1/2 in 197ms…   (up to 0.4x)
//
// The second one is a legacy stream_error or background_event message, or
// a top-level error of the item protocols of those versions.
var (
	reconnectRE = regexp.MustCompile(`^Reconnecting\.\.\.\s*(\d+)/(\d+)\s*(?:\((.*)\))?$`)
	retryingRE  = regexp.MustCompile(`^(?s)(?:stream error: )?(.*); retrying (\d+)/(\d+) in ([0-9.]+)(ms|s|µs|us)…?$`)
)

// statusRE finds an HTTP status in a retry reason ("last status: 429",
// "unexpected status 401 Unauthorized").
var statusRE = regexp.MustCompile(`status:? (\d{3})\b`)

// parseRetry reads a retry notice; ok is false for any other message.
func parseRetry(msg string) (r event.Retry, ok bool) {
	if m := reconnectRE.FindStringSubmatch(msg); m != nil {
		r = event.Retry{Error: m[3]}
		r.Attempt, _ = strconv.Atoi(m[1])
		r.MaxRetries, _ = strconv.Atoi(m[2])
	} else if m := retryingRE.FindStringSubmatch(strings.TrimSpace(msg)); m != nil {
		r = event.Retry{Error: m[1]}
		r.Attempt, _ = strconv.Atoi(m[2])
		r.MaxRetries, _ = strconv.Atoi(m[3])
		d, _ := strconv.ParseFloat(m[4], 64)
		switch m[5] {
		case "s":
			d *= 1000
		case "µs", "us":
			d /= 1000
		}
		r.DelayMs = int64(d)
	} else {
		return event.Retry{}, false
	}
	if s := statusRE.FindStringSubmatch(r.Error); s != nil {
		r.Status, _ = strconv.Atoi(s[1])
	}
	return r, true
}
