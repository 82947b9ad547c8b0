package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
)

// serialEvents is what Normalize must give: the plain loop over Next, as
// evcap normalize ran before the pipeline, with each event encoded.
func serialEvents(t *testing.T, in *Native, n event.Normalizer) ([]string, error) {
	t.Helper()
	var out []string
	add := func(evs []event.Event) {
		for i := range evs {
			b, err := event.AppendJSON(nil, &evs[i])
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
	}
	vl, _ := n.(event.ValidLiner)
	for {
		ref, line, err := in.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, fmt.Errorf("read %s: %w", in.Name, err)
		}
		if vl != nil && in.Validated() {
			add(vl.LineValid(ref, line))
		} else {
			add(n.Line(ref, line))
		}
	}
	add(n.End())
	return out, nil
}

// pipedEvents is Normalize's events, encoded, and its error.
func pipedEvents(t *testing.T, in *Native, n event.Normalizer) ([]string, error) {
	t.Helper()
	var out []string
	err := in.Normalize(context.Background(), n, func(evs []event.Event) error {
		for i := range evs {
			b, err := event.AppendJSON(nil, &evs[i])
			if err != nil {
				return err
			}
			out = append(out, string(b))
		}
		return nil
	})
	return out, err
}

func normalizerOf(t *testing.T, name string) event.Normalizer {
	t.Helper()
	d, ok := providers.Lookup(name)
	if !ok {
		t.Fatalf("no provider %q", name)
	}
	return d.Normalizer(provider.Options{})
}

// normalizeInputs are the streams the pipeline is checked on: the real
// corpus, a capture, a generated run of each provider with a line longer
// than the read buffer, and hand-made edge cases (each named for what it
// holds).
func normalizeInputs(t *testing.T) map[string]string {
	t.Helper()
	ins := map[string]string{}
	files, _ := filepath.Glob("../testdata/corpus/*/*.stdout.jsonl")
	sse, _ := filepath.Glob("../testdata/corpus/*/*.sse.txt")
	files = append(append(files, sse...), "../export/testdata/claude-subagent.capture.jsonl")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ins[f] = string(b)
	}
	if len(ins) < 20 {
		t.Fatalf("only %d corpus files found", len(ins))
	}
	for _, p := range []string{"claude", "codex", "gemini", "opencode"} {
		var b bytes.Buffer
		if _, err := gen.Write(&b, gen.Options{Provider: p, Size: 1 << 20, Seed: 3, BigLine: 300 << 10, SecretEvery: 7}); err != nil {
			t.Fatal(err)
		}
		ins["generated-"+p] = b.String()
	}
	claude := ins["../testdata/corpus/claude/tools-partial.stdout.jsonl"]
	if claude == "" {
		t.Fatal("no claude tools-partial stream")
	}
	first, _, _ := strings.Cut(claude, "\n")
	// Many short lines (several batches), not-JSON and blank lines among
	// them, and a torn last line.
	var many strings.Builder
	many.WriteString(first + "\n")
	for i := range 3 * pipeLines {
		switch i % 97 {
		case 5:
			many.WriteString("not json\n")
		case 6:
			many.WriteString("\n")
		case 7:
			many.WriteString("   \t\n")
		default:
			fmt.Fprintf(&many, `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"piece %d"}}}`+"\n", i)
		}
	}
	ins["synthetic-many-lines"] = many.String() + `{"type":"result","subtype":"success","result":"torn"`
	// Lines longer than the bytes the pipeline holds in flight, between
	// short ones.
	huge := `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"` +
		strings.Repeat(`ab\"cd\\ef\n`, (pipeBytes+pipeBytes/2)/12) + `"}]}}`
	ins["synthetic-huge-lines"] = first + "\n" + huge + "\n" + claude + huge + "\n" + huge + "\n"
	return ins
}

// TestNormalizeLikeLoop: Normalize gives the events of the plain loop,
// in the same order, on every input and for every provider's normalizer
// that reads it, whatever the chunks the reader hands out.
func TestNormalizeLikeLoop(t *testing.T) {
	ins := normalizeInputs(t)
	checked := 0
	for name, text := range ins {
		// "live" is "half" read as a pipe would be (Native.Live): a
		// batch goes on before every read.
		for _, chunking := range []string{"whole", "half", "live"} {
			if chunking != "whole" && !strings.HasPrefix(name, "synthetic") && !strings.HasPrefix(name, "generated") {
				continue // the corpus streams are short: one chunking is enough
			}
			open := func() *Native {
				var r io.Reader = strings.NewReader(text)
				if chunking != "whole" {
					r = iotest.HalfReader(r)
				}
				in, err := NewNative(r, name, io.Discard)
				if err != nil {
					t.Fatal(err)
				}
				in.Live = chunking == "live"
				return in
			}
			probe := open()
			p, err := probe.Choose("auto", providers.Names())
			if err != nil {
				p = "claude"
			}
			want, werr := serialEvents(t, probe, normalizerOf(t, p))
			got, gerr := pipedEvents(t, open(), normalizerOf(t, p))
			if werr != nil || gerr != nil {
				t.Fatalf("%s (%s): errors %v and %v", name, chunking, werr, gerr)
			}
			if len(got) != len(want) {
				t.Fatalf("%s (%s, %s): %d events, want %d", name, chunking, p, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s (%s, %s): event %d\n got %.300s\nwant %.300s", name, chunking, p, i, got[i], want[i])
				}
			}
			if len(want) > 0 {
				checked++
			}
		}
	}
	if checked < len(ins) {
		t.Fatalf("only %d runs gave events, of %d inputs", checked, len(ins))
	}
}

// failAfter reads r and then fails with err once n bytes are out.
type failAfter struct {
	r   io.Reader
	n   int
	err error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	if len(p) > f.n {
		p = p[:f.n]
	}
	k, err := f.r.Read(p)
	f.n -= k
	return k, err
}

// TestNormalizeReadError: a read error ends Normalize with the error,
// named as the loop names it, after the events of every line before it
// and without End's, as the loop does.
func TestNormalizeReadError(t *testing.T) {
	ins := normalizeInputs(t)
	text := ins["generated-claude"]
	boom := errors.New("disk on fire")
	for _, cut := range []int{50 << 10, len(text) / 3, len(text) - 10} {
		open := func() *Native {
			in, err := NewNative(&failAfter{r: strings.NewReader(text), n: cut, err: boom}, "run.jsonl", io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			return in
		}
		want, werr := serialEvents(t, open(), normalizerOf(t, "claude"))
		got, gerr := pipedEvents(t, open(), normalizerOf(t, "claude"))
		if !errors.Is(gerr, boom) || werr == nil || gerr.Error() != werr.Error() {
			t.Fatalf("cut %d: error %v, want %v", cut, gerr, werr)
		}
		// Both stop at the error, End not called.
		if len(got) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("cut %d: %d events before the error, want the loop's %d", cut, len(got), len(want))
		}
	}
}

// TestNormalizeEmitError: emit's error ends Normalize at once, and emit
// is not called again.
func TestNormalizeEmitError(t *testing.T) {
	text := normalizeInputs(t)["generated-codex"]
	in, err := NewNative(strings.NewReader(text), "run.jsonl", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("output closed")
	calls := 0
	err = in.Normalize(context.Background(), normalizerOf(t, "codex"), func([]event.Event) error {
		calls++
		if calls == 2 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 2 {
		t.Fatalf("Normalize = %v after %d calls of emit, want the emit error after 2", err, calls)
	}
}

// endless is a native stream that never ends.
type endless struct{ line []byte }

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n+len(e.line) <= len(p) {
		n += copy(p[n:], e.line)
	}
	return n, nil
}

// TestNormalizeContext: once ctx is done Normalize returns its error and
// emit is not called after that.
func TestNormalizeContext(t *testing.T) {
	src := &endless{line: []byte(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}}` + "\n")}
	in, err := NewNative(src, "endless.jsonl", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	events, after := 0, 0
	returned := false
	err = in.Normalize(ctx, normalizerOf(t, "claude"), func(evs []event.Event) error {
		if returned {
			after++
		}
		if events += len(evs); events > 20000 {
			cancel()
		}
		return nil
	})
	returned = true
	if !errors.Is(err, context.Canceled) || after != 0 || events <= 20000 {
		t.Fatalf("Normalize = %v after %d events (%d emitted after it returned)", err, events, after)
	}
}

// TestNormalizeBoundedMemory: the lines in flight stay within pipeBytes
// and one line longer than that, however slow emit is; the lines around a
// longer one are in flight with it.
func TestNormalizeBoundedMemory(t *testing.T) {
	for name, text := range normalizeInputs(t) {
		if !strings.HasPrefix(name, "synthetic") && !strings.HasPrefix(name, "generated") {
			continue
		}
		in, err := NewNative(strings.NewReader(text), name, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		longest := 0
		for _, l := range strings.Split(text, "\n") {
			longest = max(longest, len(l))
		}
		p := &pipeline{}
		err = in.normalize(context.Background(), normalizerOf(t, "claude"), p, func([]event.Event) error {
			for range 100 { // a slow writer: the reader runs ahead
				_ = strings.Repeat("x", 8)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		bound := pipeBytes
		if longest > pipeBytes {
			bound += longest
		}
		if p.budget.peak > bound || p.budget.peak == 0 {
			t.Fatalf("%s: %d bytes of lines in flight at most, bound %d", name, p.budget.peak, bound)
		}
		if longest > pipeBytes && p.budget.peak <= longest {
			t.Errorf("%s: %d bytes in flight at most: no line went along with the longest (%d)", name, p.budget.peak, longest)
		}
	}
}

// TestNormalizeLivePipe: from a pipe (Native.Live), the events of each
// line are emitted, and Drained called, before the writer has written the
// next line; batches do not wait to fill.
func TestNormalizeLivePipe(t *testing.T) {
	text, err := os.ReadFile("../testdata/corpus/claude/tools-partial.stdout.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(text), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) < 10 || !strings.HasSuffix(lines[len(lines)-1], "\n") {
		t.Fatalf("%d lines, the last not ended", len(lines))
	}
	// upTo[k] is how many events the plain loop has given once it has
	// read line k (1-based): what must be out while line k+1 is unwritten.
	upTo := make([]int, len(lines)+1)
	serial := normalizerOf(t, "claude")
	for k, line := range lines {
		upTo[k+1] = upTo[k] + len(serial.Line(int64(k+1), []byte(strings.TrimSuffix(line, "\n"))))
	}
	if upTo[len(lines)] < len(lines)/2 {
		t.Fatalf("%d events from %d lines", upTo[len(lines)], len(lines))
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// The provider is told from the first line; NewNative reads only that
	// far, so it is written before.
	if _, err := io.WriteString(w, lines[0]); err != nil {
		t.Fatal(err)
	}
	in, err := NewNative(r, "pipe", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	in.Live = true
	var mu sync.Mutex
	emitted, drains := 0, 0
	in.Drained = func() error {
		mu.Lock()
		drains++
		mu.Unlock()
		return nil
	}
	done := make(chan error, 1)
	go func() {
		done <- in.Normalize(context.Background(), normalizerOf(t, "claude"), func(evs []event.Event) error {
			mu.Lock()
			emitted += len(evs)
			mu.Unlock()
			return nil
		})
	}()
	waited := 0
	for k := 1; k <= len(lines); k++ {
		if k > 1 {
			if _, err := io.WriteString(w, lines[k-1]); err != nil {
				t.Fatal(err)
			}
		}
		if upTo[k] == upTo[k-1] {
			continue // a line without events of its own
		}
		deadline := time.Now().Add(20 * time.Second) // a hang guard, not a timing
		for {
			mu.Lock()
			n, d := emitted, drains
			mu.Unlock()
			if n > upTo[k] {
				t.Fatalf("after line %d: %d events, the loop gives %d", k, n, upTo[k])
			}
			if n == upTo[k] && d > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("line %d written and the writer waits: %d events emitted, want %d (Drained called %d times)", k, n, upTo[k], d)
			}
			time.Sleep(time.Millisecond)
		}
		waited++
	}
	w.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if waited < len(lines)/2 {
		t.Fatalf("only %d of %d lines checked", waited, len(lines))
	}
}
