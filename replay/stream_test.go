package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/normalize/codex"
	"github.com/evcap/evcap/normalize/gemini"
	"github.com/evcap/evcap/normalize/opencode"
	"github.com/evcap/evcap/replay"
)

var streamNormalizers = map[string]func() replay.Normalizer{
	"claude":   func() replay.Normalizer { return claude.New() },
	"codex":    func() replay.Normalizer { return codex.New() },
	"gemini":   func() replay.Normalizer { return gemini.New() },
	"opencode": func() replay.Normalizer { return opencode.New() },
}

// dropNth loses the nth text delta, as cmd/evcap's --inject drop-delta does.
type dropNth struct {
	n          replay.Normalizer
	seen, drop int
}

func (d *dropNth) Line(ref int64, line []byte) []event.Event { return d.filter(d.n.Line(ref, line)) }
func (d *dropNth) End() []event.Event                        { return d.filter(d.n.End()) }

func (d *dropNth) filter(evs []event.Event) []event.Event {
	var out []event.Event
	for _, e := range evs {
		if e.Kind == event.KindText && e.Phase == event.PhaseDelta {
			d.seen++
			if d.seen == d.drop {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// buildCapture records a corpus file's lines as a capture: a stderr line
// after the first native line, and the normalizer's events written as
// normalized_out every lag native lines (so they trail their lines), with
// edit applied to the list of events before they are written.
func buildCapture(t *testing.T, provider string, lines [][]byte, lag int, edit func([]event.Event) []event.Event) []byte {
	t.Helper()
	var out bytes.Buffer
	w := envelope.NewWriter(&out, envelope.WriterOptions{CaptureID: "01KQ0000000000000000000000", FlushInterval: -1})
	c := capture.New(w, capture.Options{Provider: provider})
	c.Begin(capture.Start{EvcapVersion: "test", Provider: provider})
	n := streamNormalizers[provider]()
	var pending []event.Event
	flush := func() {
		for _, e := range edit(pending) {
			c.Normalized(e)
		}
		pending = nil
	}
	for i, l := range lines {
		seq := c.Native(l)
		if i == 0 {
			c.Stderr([]byte("warning: synthetic stderr line"))
		}
		pending = append(pending, n.Line(seq, l)...)
		if (i+1)%lag == 0 {
			flush()
		}
	}
	pending = append(pending, n.End()...)
	flush()
	zero := 0
	if err := c.Close(capture.End{ExitCode: &zero, CleanEnd: true}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestRunCaptureMatchesInMemory replays corpus-derived captures through the
// streaming path and the in-memory path (LoadCapture + Run) and requires
// the same result: both nil, or the same Mismatch (every field, and its
// report text byte for byte), or the same error text.
func TestRunCaptureMatchesInMemory(t *testing.T) {
	files := []string{
		"claude/tools-partial", "claude/long-text-partial", "claude/fatal-error",
		"codex/tools", "codex/long-text", "gemini/long-text", "gemini/tools",
		"opencode/tools", "opencode/long-text",
	}
	keep := func(evs []event.Event) []event.Event { return evs }
	edits := map[string]func([]event.Event) []event.Event{
		"as-recorded": keep,
		// The recorded side loses its last event: the replay has one more.
		"recorded-short": func(evs []event.Event) []event.Event {
			if len(evs) > 0 {
				return evs[:len(evs)-1]
			}
			return evs
		},
		// The recorded side has one event twice: the replay ends early.
		"recorded-extra": func(evs []event.Event) []event.Event {
			if len(evs) > 0 {
				return append(evs, evs[len(evs)-1])
			}
			return evs
		},
	}
	mismatches := 0
	for _, file := range files {
		provider := filepath.Dir(file)
		lines := corpusLines(t, filepath.Join("../testdata/corpus", file+".stdout.jsonl"))
		for _, lag := range []int{1, 7} {
			for editName, edit := range edits {
				b := buildCapture(t, provider, lines, lag, edit)
				for _, fault := range []string{"none", "drop-delta"} {
					mk := streamNormalizers[provider]
					if fault == "drop-delta" {
						base := mk
						mk = func() replay.Normalizer { return &dropNth{n: base(), drop: 3} }
					}
					opts := replay.Options{Mode: replay.ModeNative, Normalizer: mk}
					name := file + ".capture.jsonl"
					want := inMemory(t, b, name, opts)
					got := replay.RunCapture(bytes.NewReader(b), name, opts)
					compareResults(t, file, editName, fault, lag, want, got)
					if want != nil {
						mismatches++
					}
					if editName == "as-recorded" && fault == "none" && got != nil {
						t.Errorf("%s lag %d: a capture replayed against itself differs:\n%v", file, lag, got)
					}
				}
			}
		}
	}
	// The faults must have produced reports for the comparison to mean
	// anything.
	if mismatches < len(files)*2*2 {
		t.Errorf("only %d of the runs reported a mismatch", mismatches)
	}
}

func inMemory(t *testing.T, b []byte, name string, opts replay.Options) error {
	t.Helper()
	fx, err := replay.LoadCapture(bytes.NewReader(b), name)
	if err != nil {
		return err
	}
	return replay.Run(fx, opts)
}

func compareResults(t *testing.T, file, edit, fault string, lag int, want, got error) {
	t.Helper()
	if (want == nil) != (got == nil) {
		t.Errorf("%s %s %s lag %d: in memory %v, streamed %v", file, edit, fault, lag, want, got)
		return
	}
	if want == nil {
		return
	}
	if want.Error() != got.Error() {
		t.Errorf("%s %s %s lag %d: reports differ\nin memory:\n%s\nstreamed:\n%s", file, edit, fault, lag, want, got)
		return
	}
	var mw, mg *replay.Mismatch
	if errors.As(want, &mw) != errors.As(got, &mg) {
		t.Errorf("%s %s %s lag %d: one is a Mismatch, the other not: %T vs %T", file, edit, fault, lag, want, got)
		return
	}
	if mw != nil && !reflect.DeepEqual(mw, mg) {
		t.Errorf("%s %s %s lag %d: Mismatch fields differ\nin memory: %#v\nstreamed:  %#v", file, edit, fault, lag, mw, mg)
	}
}

// TestRunCaptureOutOfOrder swaps two records of a capture: the stream
// notices the sequence going backwards and falls back to the in-memory
// path, which sorts.
func TestRunCaptureOutOfOrder(t *testing.T) {
	lines := corpusLines(t, "../testdata/corpus/claude/tools-partial.stdout.jsonl")
	opts := replay.Options{Mode: replay.ModeNative, Normalizer: streamNormalizers["claude"]}
	for _, fault := range []bool{false, true} {
		if fault {
			opts.Normalizer = func() replay.Normalizer { return &dropNth{n: claude.New(), drop: 3} }
		}
		b := buildCapture(t, "claude", lines, 3, func(evs []event.Event) []event.Event { return evs })
		recs := bytes.SplitAfter(b, []byte("\n"))
		recs[3], recs[4] = recs[4], recs[3]
		b = bytes.Join(recs, nil)
		want := inMemory(t, b, "swapped", opts)
		got := replay.RunCapture(bytes.NewReader(b), "swapped", opts)
		compareResults(t, "swapped", "swap", "", 3, want, got)
		if fault != (got != nil) {
			t.Errorf("fault %v: got %v", fault, got)
		}
	}
}

// TestRunCaptureBadInput: a capture without normalized_out records and one
// without native lines give the in-memory path's errors.
func TestRunCaptureBadInput(t *testing.T) {
	lines := corpusLines(t, "../testdata/corpus/claude/tools.stdout.jsonl")
	opts := replay.Options{Mode: replay.ModeNative, Normalizer: streamNormalizers["claude"]}
	none := buildCapture(t, "claude", lines, 1, func([]event.Event) []event.Event { return nil })
	got := replay.RunCapture(bytes.NewReader(none), "none", opts)
	if !errors.Is(got, replay.ErrBadInput) {
		t.Fatalf("no normalized_out: got %v, want ErrBadInput", got)
	}
	compareResults(t, "none", "", "", 1, inMemory(t, none, "none", opts), got)
	empty := buildCapture(t, "claude", nil, 1, func(evs []event.Event) []event.Event { return evs })
	got = replay.RunCapture(bytes.NewReader(empty), "empty", opts)
	if !errors.Is(got, replay.ErrBadInput) {
		t.Fatalf("no native lines: got %v, want ErrBadInput", got)
	}
	compareResults(t, "empty", "", "", 1, inMemory(t, empty, "empty", opts), got)
}

// respell rewrites the payload of every normalized_out record of a capture
// with f (the records themselves unchanged otherwise).
func respell(t *testing.T, b []byte, f func(seq int64, payload []byte) []byte) []byte {
	t.Helper()
	var out []byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		rec, err := envelope.ParseRecord(bytes.TrimSuffix(l, []byte("\n")))
		if err != nil {
			t.Fatal(err)
		}
		if rec.Stage == envelope.StageNormalizedOut {
			rec.Payload = f(rec.Sequence, rec.Payload)
		}
		out = envelope.AppendRecord(out, rec)
	}
	return out
}

// TestRunCaptureRespelled: the stream compares a recorded event with the
// replayed one by its bytes first; a record that spells the same event
// differently (keys in another order, as another writer might) must still
// match, one that is not an event must give the in-memory path's error.
func TestRunCaptureRespelled(t *testing.T) {
	lines := corpusLines(t, "../testdata/corpus/claude/tools-partial.stdout.jsonl")
	opts := replay.Options{Mode: replay.ModeNative, Normalizer: streamNormalizers["claude"]}
	b := buildCapture(t, "claude", lines, 1, func(evs []event.Event) []event.Event { return evs })
	sorted := respell(t, b, func(_ int64, p []byte) []byte {
		var m map[string]any
		if err := json.Unmarshal(p, &m); err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(m) // keys sorted: not the recorder's order
		if err != nil {
			t.Fatal(err)
		}
		return out
	})
	if bytes.Equal(sorted, b) {
		t.Fatal("respelling changed nothing: the test would prove nothing")
	}
	if err := replay.RunCapture(bytes.NewReader(sorted), "sorted", opts); err != nil {
		t.Errorf("the same events spelled with sorted keys: %v", err)
	}
	compareResults(t, "sorted", "respell", "", 1, inMemory(t, sorted, "sorted", opts), replay.RunCapture(bytes.NewReader(sorted), "sorted", opts))

	n := 0
	broken := respell(t, b, func(_ int64, p []byte) []byte {
		n++
		if n == 5 {
			return []byte(`"not an event"`)
		}
		return p
	})
	got := replay.RunCapture(bytes.NewReader(broken), "broken", opts)
	if !errors.Is(got, replay.ErrBadInput) {
		t.Fatalf("a normalized_out record that is not an event: got %v, want ErrBadInput", got)
	}
	compareResults(t, "broken", "respell", "", 1, inMemory(t, broken, "broken", opts), got)
}

// TestRunCaptureContext: a replay stops with the context's cause, on the
// streaming and on the in-memory path.
func TestRunCaptureContext(t *testing.T) {
	lines := corpusLines(t, "../testdata/corpus/claude/tools-partial.stdout.jsonl")
	b := buildCapture(t, "claude", lines, 1, func(evs []event.Event) []event.Event { return evs })
	stop := errors.New("stopped by the test")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	for _, o := range []replay.Options{
		{Mode: replay.ModeNative, Normalizer: streamNormalizers["claude"]},
		{Mode: replay.ModeNative, Normalizer: streamNormalizers["claude"], Rechunk: &replay.Rechunk{Seed: 1}},
	} {
		if err := replay.RunCaptureContext(ctx, bytes.NewReader(b), "cancelled", o); !errors.Is(err, stop) {
			t.Errorf("rechunk %v: got %v, want the context's cause", o.Rechunk != nil, err)
		}
	}
	fx, err := replay.LoadCapture(bytes.NewReader(b), "loaded")
	if err != nil {
		t.Fatal(err)
	}
	if err := replay.RunContext(ctx, fx, replay.Options{Mode: replay.ModeNative, Normalizer: streamNormalizers["claude"]}); !errors.Is(err, stop) {
		t.Errorf("RunContext: got %v, want the context's cause", err)
	}
	if _, _, err := replay.CaptureProviderContext(ctx, bytes.NewReader(b), "cancelled"); !errors.Is(err, stop) {
		t.Errorf("CaptureProviderContext: got %v, want the context's cause", err)
	}
	if _, err := replay.CaptureTimesContext(ctx, bytes.NewReader(b), "cancelled"); !errors.Is(err, stop) {
		t.Errorf("CaptureTimesContext: got %v, want the context's cause", err)
	}
}

// TestRunCaptureManyChunks is TestRunCaptureMatchesInMemory on a capture
// of several of the envelope reader's 256 KiB chunks (a corpus run four
// times over, 1.5 MB; twice under the race detector), whose normalized_out records trail their native
// lines by more lines than the comparer takes in one batch: the streaming
// comparer, fed from another goroutine, has its records' copies queued
// across chunk ends and batches, and must still agree with the in-memory
// path when the recorded events match, differ late in the run, or end
// early.
func TestRunCaptureManyChunks(t *testing.T) {
	one := corpusLines(t, "../testdata/corpus/claude/long-text-partial.stdout.jsonl")
	// Under the race detector: half the capture (still three chunks) and
	// only the lag that spans them.
	times, lags := 4, []int{1, 700}
	if raceEnabled {
		times, lags = 2, []int{700}
	}
	var lines [][]byte
	for range times {
		lines = append(lines, one...)
	}
	keep := func(evs []event.Event) []event.Event { return evs }
	total := 0
	edits := map[string]func([]event.Event) []event.Event{
		"as-recorded": keep,
		// One text delta late in the run says something else.
		"late-text": func(evs []event.Event) []event.Event {
			for i := range evs {
				if total++; total == 500*times {
					evs[i].Text += "!"
				}
			}
			return evs
		},
		"recorded-short": func(evs []event.Event) []event.Event {
			if len(evs) > 0 {
				return evs[:len(evs)-1]
			}
			return evs
		},
	}
	for editName, edit := range edits {
		for _, lag := range lags {
			total = 0
			b := buildCapture(t, "claude", lines, lag, edit)
			if len(b) < times*180<<10 {
				t.Fatalf("the capture is %d bytes, not several chunks", len(b))
			}
			opts := replay.Options{Mode: replay.ModeNative, Normalizer: streamNormalizers["claude"]}
			want := inMemory(t, b, "many.capture.jsonl", opts)
			got := replay.RunCapture(bytes.NewReader(b), "many.capture.jsonl", opts)
			compareResults(t, "long-text-partial ×4", editName, "none", lag, want, got)
			if (want == nil) != (editName == "as-recorded") {
				t.Errorf("%s lag %d: in memory gave %v", editName, lag, want)
			}
		}
	}
}
