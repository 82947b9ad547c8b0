package census_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/evcap/evcap/census"
	"github.com/evcap/evcap/event"
	"github.com/google/go-cmp/cmp"
)

// typeNormalizer is a stand-in normalizer for the model's tests: a line
// "T" or "T+f1,f2" is native type T with unknown fields f1, f2; types
// starting with "x" are unknown, "skip" is ignored, the rest handled. A
// line "init V" reports CLI version V.
type typeNormalizer struct{}

func (typeNormalizer) Classify(line []byte) event.Classification {
	typ, fields, _ := strings.Cut(string(line), "+")
	c := event.Classification{NativeType: strings.Fields(typ)[0], Disposition: event.DispositionHandled}
	switch {
	case strings.HasPrefix(c.NativeType, "x"):
		c.Disposition = event.DispositionUnknown
	case c.NativeType == "skip":
		c.Disposition, c.Reason = event.DispositionIgnored, "noise"
	}
	if fields != "" {
		c.UnknownFields = strings.Split(fields, ",")
	}
	return c
}

func (typeNormalizer) Line(_ int64, line []byte) []event.Event {
	if v, ok := strings.CutPrefix(string(line), "init "); ok {
		return []event.Event{{Kind: event.KindInit, Phase: event.PhaseCompleted, Version: v}}
	}
	return nil
}

func (typeNormalizer) End() []event.Event { return nil }

type fakeLines struct {
	ls []string
	i  int
}

func (l *fakeLines) Next() (int64, []byte, error) {
	if l.i == len(l.ls) {
		return 0, nil, io.EOF
	}
	l.i++
	return int64(l.i), []byte(l.ls[l.i-1]), nil
}

func count(t *testing.T, name string, o census.FileOptions, ls ...string) *census.Group {
	t.Helper()
	o.Name, o.Provider = name, "p"
	g, err := census.CountFile(context.Background(), &fakeLines{ls: ls}, typeNormalizer{}, o)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestCensusGroupsAndGates(t *testing.T) {
	c := census.New()
	c.Add(count(t, "a.jsonl", census.FileOptions{}, "init 1.0", "text", "xnew", "text+extra"))
	c.Add(count(t, "b.jsonl", census.FileOptions{Capture: true}, "init 1.0", "xnew+z", "skip"))
	c.Add(count(t, "c.jsonl", census.FileOptions{Recorded: "0.9"}, "text"))
	c.Add(count(t, "d.jsonl", census.FileOptions{Fallback: map[string]string{"": "any"}}, "text"))
	c.Skip("e.jsonl")
	if c.Counted() != 3 {
		t.Fatalf("%d groups, want 3 (1.0, 0.9 and any)", c.Counted())
	}
	rep := c.Report()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"groups":[` +
		`{"provider":"p","cliVersion":"0.9","files":["c.jsonl"],"lines":1,"types":[{"nativeType":"text","disposition":"handled","count":1}]},` +
		`{"provider":"p","cliVersion":"1.0","files":["a.jsonl","b.jsonl"],"lines":7,"types":[` +
		`{"nativeType":"init","disposition":"handled","count":2},` +
		`{"nativeType":"skip","disposition":"ignored","reason":"noise","count":1},` +
		`{"nativeType":"text","disposition":"handled","count":2,"unknownFields":[{"field":"extra","count":1,"firstSeen":"a.jsonl:4"}]},` +
		`{"nativeType":"xnew","disposition":"unknown","count":2,"unknownFields":[{"field":"z","count":1,"firstSeen":"b.jsonl@2"}],"firstSeen":"a.jsonl:3"}]},` +
		`{"provider":"p","cliVersion":"any","files":["d.jsonl"],"lines":1,"types":[{"nativeType":"text","disposition":"handled","count":1}]}],` +
		`"unknownTypes":1,"unknownFields":2,"skipped":["e.jsonl"]}`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("report JSON (-want +got):\n%s", diff)
	}

	for _, tt := range []struct {
		gate census.FailOn
		want []string
	}{
		{census.FailNone, nil},
		{census.FailTypes, []string{"xnew"}},
		{census.FailFields, []string{"text.extra", "xnew.z"}},
		{census.FailAll, []string{"text.extra", "xnew", "xnew.z"}},
	} {
		var got []string
		for _, u := range rep.Failures(tt.gate) {
			if u.Field != "" {
				got = append(got, u.NativeType+"."+u.Field)
			} else {
				got = append(got, u.NativeType)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("gate %q (-want +got):\n%s", tt.gate, diff)
		}
	}
}

func TestParseFailOn(t *testing.T) {
	for _, s := range []string{"", "types", "fields", "all"} {
		if f, err := census.ParseFailOn(s); err != nil || string(f) != s {
			t.Errorf("ParseFailOn(%q) = %q, %v", s, f, err)
		}
	}
	if _, err := census.ParseFailOn("some"); err == nil {
		t.Error(`ParseFailOn("some") accepted`)
	}
}

func TestCountFileStopsOnContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := census.CountFile(ctx, &fakeLines{ls: []string{"text"}}, typeNormalizer{}, census.FileOptions{Name: "a"}); err != context.Canceled {
		t.Errorf("err %v, want context.Canceled", err)
	}
}
