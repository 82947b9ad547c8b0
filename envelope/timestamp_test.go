package envelope_test

import (
	"testing"
	"time"

	"github.com/evcap/evcap/envelope"
)

func TestParseTimestamp(t *testing.T) {
	wall := time.Date(2026, 12, 3, 15, 4, 5, 678e6, time.UTC)
	origin := envelope.OffsetOrigin()
	for _, c := range []struct {
		in     string
		want   time.Time
		offset bool
	}{
		{envelope.FormatTimestamp(wall), wall, false},
		{"2026-12-03T16:04:05.678+01:00", wall, false},
		{"+0.000s", origin, true},
		{"+1.250s", origin.Add(1250 * time.Millisecond), true},
		{"+3600.001s", origin.Add(time.Hour + time.Millisecond), true},
		{"-0.004s", origin.Add(-4 * time.Millisecond), true},
	} {
		got, offset, err := envelope.ParseTimestamp(c.in)
		if err != nil || !got.Equal(c.want) || offset != c.offset {
			t.Errorf("ParseTimestamp(%q) = %v, %v, %v; want %v, %v", c.in, got, offset, err, c.want, c.offset)
		}
	}
	if origin.IsZero() {
		t.Error("an offset of zero is the zero time, which callers read as no time")
	}
	for _, bad := range []string{"", "+", "+1.2", "yesterday", "2026-12-03"} {
		if _, _, err := envelope.ParseTimestamp(bad); err == nil {
			t.Errorf("ParseTimestamp(%q) accepted", bad)
		}
	}
}
