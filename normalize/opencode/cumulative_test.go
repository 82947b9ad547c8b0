package opencode_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/normalize/opencode"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// snapshotFile is the real capture serve-tools with every text delta rewritten
// to carry its block's whole text so far, as some Claude-compatible
// providers send deltas. replay.CumulativeLines made it, and replay's
// TestCumulativeSynthetics keeps it so.
const snapshotFile = "testdata/cumulative/synthetic-serve-tools.jsonl"

func cumulativeSource(t *testing.T) string {
	return filepath.Join(corpustest.Dir(t), "opencode", "serve-tools.stdout.jsonl")
}

func fileLines(t *testing.T, file string) [][]byte {
	t.Helper()
	var out [][]byte
	corpustest.EachLine(t, file, func(_ int64, l []byte) { out = append(out, bytes.Clone(l)) })
	return out
}

func normalizeLines(n *opencode.Normalizer, lines [][]byte) []event.Event {
	var evs []event.Event
	for i, l := range lines {
		evs = append(evs, n.Line(int64(i+1), l)...)
	}
	return append(evs, n.End()...)
}

// TestCumulativeDeltas reads the snapshot stream with CumulativeDeltas and
// expects exactly the events of the real capture; read without it, the
// same stream repeats text, which is the defect the option exists for.
func TestCumulativeDeltas(t *testing.T) {
	want := normalizeLines(opencode.New(), fileLines(t, cumulativeSource(t)))
	snaps := fileLines(t, snapshotFile)
	got := normalizeLines(opencode.NewWithOptions(opencode.Options{CumulativeDeltas: true}), snaps)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("snapshots read with CumulativeDeltas differ from the capture's events (-capture +snapshots):\n%s", d)
	}
	plain := normalizeLines(opencode.New(), snaps)
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

// TestCumulativeRewrite: a snapshot that does not extend its block's text
// is passed on whole after a status event that records the rewrite, and
// becomes the block's text.
func TestCumulativeRewrite(t *testing.T) {
	lines := fileLines(t, snapshotFile)
	at := -1
	for i, l := range lines {
		if v := gjson.ParseBytes(l); v.Get("type").String() == "message.part.delta" {
			at = i
		}
	}
	if at < 0 {
		t.Fatal("no text delta in " + snapshotFile)
	}
	rewritten := bytes.Replace(lines[at], []byte("\"delta\":\""), []byte("\"delta\":\"Rewritten: "), 1)
	if bytes.Equal(rewritten, lines[at]) {
		t.Fatalf("line %d has no \"delta\":\" to rewrite", at+1)
	}
	lines[at] = rewritten
	evs := normalizeLines(opencode.NewWithOptions(opencode.Options{CumulativeDeltas: true}), lines)
	ref := int64(at + 1)
	var status []int
	for i, e := range evs {
		if e.Kind == event.KindStatus && e.Status == opencode.StatusSnapshotRewritten {
			status = append(status, i)
		}
	}
	if len(status) != 1 {
		t.Fatalf("want one %s status event, got %d", opencode.StatusSnapshotRewritten, len(status))
	}
	st := evs[status[0]]
	if !cmp.Equal(st.Cause, []int64{ref}) || st.NativeType != "message.part.delta" {
		t.Errorf("status event %+v: want cause [%d] and nativeType message.part.delta", st, ref)
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
		if e.Phase == event.PhaseCompleted && e.Kind == d.Kind && e.PartID == d.PartID {
			// The completed text is the part's own, from message.part.updated,
			// which the rewrite did not touch.
			for _, w := range normalizeLines(opencode.New(), fileLines(t, cumulativeSource(t))) {
				if w.Phase == event.PhaseCompleted && w.Kind == e.Kind && w.PartID == e.PartID && w.Text != e.Text {
					t.Errorf("completed text %q, want the part's text %q", e.Text, w.Text)
				}
			}
			return
		}
	}
	t.Error("the rewritten block never completed")
}
