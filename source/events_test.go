package source_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/source"
	"github.com/google/go-cmp/cmp"
)

// A real capture of claude -p with a subagent: native_in lines and the
// normalized_out events made of them while it ran.
const subagentCapture = "../export/testdata/claude-subagent.capture.jsonl"

// eventsOf opens path and reads every event and time Events gives.
func eventsOf(t *testing.T, path string, o source.EventsOptions) (*source.EventStream, []event.Event, []time.Time) {
	t.Helper()
	in, err := source.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	s, err := in.Events(o)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var evs []event.Event
	var at []time.Time
	for {
		when, e, err := s.Next()
		if errors.Is(err, io.EOF) {
			return s, evs, at
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		evs = append(evs, e)
		at = append(at, when)
	}
}

// TestEventsPrefersRecordedEvents: a capture that recorded its events
// gives those, in order, stamped with their records' times.
func TestEventsPrefersRecordedEvents(t *testing.T) {
	s, got, at := eventsOf(t, subagentCapture, source.EventsOptions{})
	if s.From != envelope.StageNormalizedOut || s.Provider != "" {
		t.Fatalf("events from %s (provider %q), want the recorded normalized_out", s.From, s.Provider)
	}
	var want []event.Event
	var wantAt []time.Time
	for _, rec := range corpustest.Records(t, subagentCapture) {
		if rec.Stage != envelope.StageNormalizedOut {
			continue
		}
		var e event.Event
		if err := json.Unmarshal(rec.Payload, &e); err != nil {
			t.Fatal(err)
		}
		want = append(want, e)
		ts, offset, err := envelope.ParseTimestamp(rec.Timestamp)
		if err != nil || !offset {
			t.Fatalf("timestamp %q: %v (a sanitized capture holds offsets)", rec.Timestamp, err)
		}
		wantAt = append(wantAt, ts)
	}
	if len(want) < 10 {
		t.Fatalf("the capture holds %d normalized_out records", len(want))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("events (-recorded +Events):\n%s", d)
	}
	if d := cmp.Diff(wantAt, at); d != "" {
		t.Errorf("times (-recorded +Events):\n%s", d)
	}
	if s.Invalid() != 0 {
		t.Errorf("%d invalid records in a valid capture", s.Invalid())
	}
}

// TestEventsNormalizesNativeRecords: a capture of native lines alone is
// normalized by the provider it names, each event stamped with its line's
// time; a line that is not a record is skipped, counted and reported.
func TestEventsNormalizesNativeRecords(t *testing.T) {
	var buf bytes.Buffer
	var refs []int64
	var lines [][]byte
	var times []time.Time
	src, err := os.ReadFile(subagentCapture)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range bytes.SplitAfter(src, []byte("\n")) {
		if i == 3 {
			buf.WriteString("not a record\n")
		}
		if bytes.Contains(l, []byte(`"stage":"normalized_out"`)) || bytes.Contains(l, []byte(`"stage":"legacy_out"`)) {
			continue
		}
		buf.Write(l)
	}
	path := filepath.Join(t.TempDir(), "native.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, rec := range corpustest.Records(t, subagentCapture) {
		if rec.Stage == envelope.StageNativeIn && rec.EventType != envelope.EventStderr {
			refs = append(refs, rec.Sequence)
			lines = append(lines, envelope.DecodeNativeLine(rec.EventType, rec.Payload))
			ts, _, err := envelope.ParseTimestamp(rec.Timestamp)
			if err != nil {
				t.Fatal(err)
			}
			times = append(times, ts)
		}
	}
	var warn bytes.Buffer
	s, got, at := eventsOf(t, path, source.EventsOptions{Warn: &warn})
	if s.From != envelope.StageNativeIn || s.Provider != "claude" {
		t.Fatalf("events from %s (provider %q), want claude's native_in", s.From, s.Provider)
	}
	if d := cmp.Diff(normalizeAs(t, "claude", refs, lines), got); d != "" {
		t.Errorf("events (-normalizer +Events):\n%s", d)
	}
	for i, e := range got {
		if len(e.Cause) == 0 {
			continue
		}
		// The event's time is that of the line it came from (or a later
		// one's, for events a line completes).
		if k := indexOf(refs, e.Cause[0]); k < 0 || at[i].Before(times[k]) {
			t.Errorf("event %d (cause %v) at %v, before its line's time", i, e.Cause, at[i])
		}
	}
	if s.Invalid() != 1 || !strings.Contains(warn.String(), "native.jsonl") {
		t.Errorf("invalid %d, warnings %q: want the line that is not a record counted and named", s.Invalid(), warn.String())
	}
}

func indexOf(refs []int64, ref int64) int {
	for i, r := range refs {
		if r == ref {
			return i
		}
	}
	return -1
}

// TestEventsReadsRawOutput: raw output of each provider's real CLI is
// normalized by the provider detected from its lines, without times.
func TestEventsReadsRawOutput(t *testing.T) {
	for _, name := range []string{"claude", "codex", "gemini", "opencode"} {
		path := "../testdata/corpus/" + name + "/tools.stdout.jsonl"
		s, got, at := eventsOf(t, path, source.EventsOptions{})
		if s.From != envelope.StageNativeIn || s.Provider != name {
			t.Errorf("%s: events from %s (provider %q)", path, s.From, s.Provider)
			continue
		}
		if d := cmp.Diff(corpustest.Normalize(t, path), got); d != "" {
			t.Errorf("%s: events (-normalizer +Events):\n%s", path, d)
		}
		for _, when := range at {
			if !when.IsZero() {
				t.Errorf("%s: raw output gave a time %v", path, when)
				break
			}
		}
	}
	in, err := source.Open("../testdata/corpus/codex/tools.stdout.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := in.Events(source.EventsOptions{Provider: "claude"}); err == nil {
		t.Error("Codex output read as Claude's without a word")
	}
}

// normalizeAs is what provider's normalizer makes of lines, the i-th
// numbered refs[i].
func normalizeAs(t *testing.T, provider string, refs []int64, lines [][]byte) []event.Event {
	t.Helper()
	n := corpustest.NewNormalizer(t, provider)
	var out []event.Event
	for i, l := range lines {
		out = append(out, n.Line(refs[i], l)...)
	}
	return append(out, n.End()...)
}
