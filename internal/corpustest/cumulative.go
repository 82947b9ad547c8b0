package corpustest

import (
	"bytes"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// Cumulative describes, for one delta-streaming normalizer, a real corpus
// capture and its rewrite into cumulative snapshots (every delta carrying
// its block's whole text so far, as some Claude-compatible providers send),
// so that the same two tests serve Claude, Gemini and opencode.
type Cumulative struct {
	// Source is the real capture; Snapshots its rewrite (made by
	// replay.CumulativeLines and kept so by replay's tests).
	Source, Snapshots string
	// New and NewCumulative make the normalizer without and with its
	// CumulativeDeltas option.
	New, NewCumulative func() event.Normalizer
	// IsDelta tells a text delta line; DeltaField is the JSON key that
	// holds its text, NativeType the type the normalizer names it by.
	IsDelta    func(gjson.Result) bool
	DeltaField string
	NativeType string
	// RewrittenStatus is the status word of a rewritten snapshot.
	RewrittenStatus string
	// CompletedKeepsPartText: the completed event keeps the text the
	// provider states for the part (opencode's message.part.updated)
	// instead of the last snapshot.
	CompletedKeepsPartText bool
}

func (c Cumulative) lines(t *testing.T, file string) [][]byte {
	t.Helper()
	var out [][]byte
	EachLine(t, file, func(_ int64, l []byte) { out = append(out, bytes.Clone(l)) })
	return out
}

func normalizeAll(n event.Normalizer, lines [][]byte) []event.Event {
	var evs []event.Event
	for i, l := range lines {
		evs = append(evs, n.Line(int64(i+1), l)...)
	}
	return append(evs, n.End()...)
}

// TestMatchesCapture reads the snapshot stream with the option and expects
// exactly the events of the real capture; read without it, the same
// stream must repeat text, the defect the option exists for.
func (c Cumulative) TestMatchesCapture(t *testing.T) {
	want := normalizeAll(c.New(), c.lines(t, c.Source))
	snaps := c.lines(t, c.Snapshots)
	got := normalizeAll(c.NewCumulative(), snaps)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("snapshots read with CumulativeDeltas differ from the capture's events (-capture +snapshots):\n%s", d)
	}
	plain := normalizeAll(c.New(), snaps)
	longer := 0
	for i := range plain {
		if i < len(want) && plain[i].Phase == event.PhaseDelta && len(plain[i].Text) > len(want[i].Text) {
			longer++
		}
	}
	if longer == 0 {
		t.Fatal("read as pieces, no delta of the snapshot stream is longer than the capture's: the file holds no snapshots")
	}
}

// TestRewrite: a snapshot that does not extend its block's text is passed
// on whole after a status event that records the rewrite, and becomes the
// block's text (unless CompletedKeepsPartText).
func (c Cumulative) TestRewrite(t *testing.T) {
	lines := c.lines(t, c.Snapshots)
	at := -1
	for i, l := range lines {
		if c.IsDelta(gjson.ParseBytes(l)) {
			at = i
		}
	}
	if at < 0 {
		t.Fatal("no text delta in " + c.Snapshots)
	}
	key := []byte(`"` + c.DeltaField + `":"`)
	rewritten := bytes.Replace(lines[at], key, append(append([]byte(nil), key...), "Rewritten: "...), 1)
	if bytes.Equal(rewritten, lines[at]) {
		t.Fatalf("line %d has no %s to rewrite", at+1, key)
	}
	lines[at] = rewritten
	evs := normalizeAll(c.NewCumulative(), lines)
	ref := int64(at + 1)
	var status []int
	for i, e := range evs {
		if e.Kind == event.KindStatus && e.Status == c.RewrittenStatus {
			status = append(status, i)
		}
	}
	if len(status) != 1 {
		t.Fatalf("want one %s status event, got %d", c.RewrittenStatus, len(status))
	}
	st := evs[status[0]]
	if !cmp.Equal(st.Cause, []int64{ref}) || st.NativeType != c.NativeType {
		t.Errorf("status event %+v: want cause [%d] and nativeType %s", st, ref, c.NativeType)
	}
	if status[0]+1 >= len(evs) {
		t.Fatal("nothing follows the status event")
	}
	d := evs[status[0]+1]
	snapshot := gjson.ParseBytes(lines[at])
	var whole string
	for _, p := range []string{"event.delta.text", "content", "properties.delta"} {
		if v := snapshot.Get(p); v.Exists() {
			whole = v.String()
		}
	}
	if d.Phase != event.PhaseDelta || d.Text != whole || d.PartID != st.PartID {
		t.Errorf("after the status event: %+v; want the delta of part %q with the whole snapshot %q", d, st.PartID, whole)
	}
	for _, e := range evs[status[0]+2:] {
		if e.Phase != event.PhaseCompleted || e.Kind != d.Kind || e.PartID != d.PartID {
			continue
		}
		if c.CompletedKeepsPartText {
			for _, w := range normalizeAll(c.New(), c.lines(t, c.Source)) {
				if w.Phase == event.PhaseCompleted && w.Kind == e.Kind && w.PartID == e.PartID && w.Text != e.Text {
					t.Errorf("completed text %q, want the part's text %q", e.Text, w.Text)
				}
			}
		} else if e.Text != whole {
			t.Errorf("completed text %q, want the last snapshot %q", e.Text, whole)
		}
		return
	}
	t.Error("the rewritten block never completed")
}
