package envelope

import (
	"fmt"
	"time"
)

// OffsetOrigin is the time ParseTimestamp gives an offset of zero. A
// sanitized capture holds offsets from its first record ("+1.250s")
// instead of wall times, which it does not reveal; they are placed after
// this fixed, non-zero origin (the Unix epoch), so only the differences
// between them mean anything, as between the times of any one capture.
func OffsetOrigin() time.Time { return time.Unix(0, 0).UTC() }

// ParseTimestamp reads a record's timestamp field in either of its forms:
// an RFC 3339 time, as evcap record writes it (FormatTimestamp), or an
// offset from the capture's first record, as evcap sanitize writes it
// ("+1.250s", "-0.004s" for a record stamped before the first), which
// comes back as that long after OffsetOrigin with offset set. Every reader
// of record times goes through here, so a sanitized capture keeps its
// timing wherever it is played, rendered or replayed. "" (sanitize
// --drop-times) and anything else is an error.
func ParseTimestamp(ts string) (t time.Time, offset bool, err error) {
	if ts != "" && (ts[0] == '+' || ts[0] == '-') {
		d, err := time.ParseDuration(ts)
		if err != nil {
			return time.Time{}, false, fmt.Errorf("timestamp %q is neither an RFC 3339 time nor an offset", ts)
		}
		return OffsetOrigin().Add(d), true, nil
	}
	t, err = time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("timestamp %q is neither an RFC 3339 time nor an offset", ts)
	}
	return t, false, nil
}
