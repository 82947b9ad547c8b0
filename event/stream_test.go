package event_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/google/go-cmp/cmp"
)

// echo is a Normalizer that gives one text event per line (the line as its
// text) and a result event at End, so the tests can see exactly which lines
// reached it, with which refs, and how often End ran.
type echo struct{}

func (echo) Line(ref int64, line []byte) []event.Event {
	return []event.Event{{Kind: event.KindText, Phase: event.PhaseCompleted, Text: string(line), Cause: []int64{ref}}}
}

func (echo) End() []event.Event {
	return []event.Event{{Kind: event.KindResult, Phase: event.PhaseCompleted}}
}

func (echo) Classify([]byte) event.Classification { return event.Classification{} }

func texts(evs []event.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, fmt.Sprintf("%s %q %v", e.Kind, e.Text, e.Cause))
	}
	return out
}

func TestConverterChunkings(t *testing.T) {
	const in = "a\n\nlong line\ntorn"
	want := []string{`text "a" [1]`, `text "" [2]`, `text "long line" [3]`, `text "torn" [4]`, `result "" []`}
	data := []byte(in)
	for name, chunks := range map[string][][]byte{
		"whole":  {data},
		"lines":  bytes.SplitAfter(data, []byte("\n")),
		"1-byte": bytes.SplitAfter(data, nil),
	} {
		var got []event.Event
		c := event.NewConverter(echo{}, func(e event.Event) { got = append(got, e) })
		for _, p := range chunks {
			if n, err := c.Write(p); n != len(p) || err != nil {
				t.Fatalf("%s: Write = %d, %v", name, n, err)
			}
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, texts(got)); diff != "" {
			t.Errorf("%s (second Close must add nothing):\n%s", name, diff)
		}
	}
}

func TestReadAllMatchesConverter(t *testing.T) {
	const in = "a\n\nlong line\ntorn"
	got, err := event.ReadAll(strings.NewReader(in), echo{})
	if err != nil {
		t.Fatal(err)
	}
	var want []event.Event
	c := event.NewConverter(echo{}, func(e event.Event) { want = append(want, e) })
	io.WriteString(c, in)
	c.Close()
	if diff := cmp.Diff(texts(want), texts(got)); diff != "" {
		t.Error(diff)
	}
}

type failAfter struct {
	data string
	err  error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if f.data == "" {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestReadAllReadError(t *testing.T) {
	boom := errors.New("boom")
	evs, err := event.ReadAll(&failAfter{data: "a\nb\n", err: boom}, echo{})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("err = %v, want boom naming line 3", err)
	}
	if diff := cmp.Diff([]string{`text "a" [1]`, `text "b" [2]`}, texts(evs)); diff != "" {
		t.Errorf("events before the error:\n%s", diff)
	}
}
