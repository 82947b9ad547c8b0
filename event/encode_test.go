package event_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
)

// sameAsMarshal fails t unless event.AppendJSON gives exactly what
// json.Marshal gives for e (or fails exactly when it fails), appending to
// a buffer that already holds bytes, which must be kept.
func sameAsMarshal(t testing.TB, e *event.Event) {
	t.Helper()
	want, werr := json.Marshal(e)
	prefix := []byte("keep")
	got, gerr := event.AppendJSON(prefix, e)
	if !bytes.HasPrefix(got, []byte("keep")) {
		t.Fatalf("AppendJSON lost the bytes already in dst: %q", got)
	}
	got = got[len("keep"):]
	switch {
	case werr != nil && gerr == nil:
		t.Fatalf("json.Marshal fails (%v), AppendJSON gave %q for %#v", werr, got, e)
	case werr == nil && gerr != nil:
		t.Fatalf("AppendJSON fails (%v), json.Marshal gave %q for %#v", gerr, want, e)
	case werr != nil:
		if werr.Error() != gerr.Error() {
			t.Fatalf("errors differ: json.Marshal %q, AppendJSON %q", werr, gerr)
		}
		if len(got) != 0 {
			t.Fatalf("AppendJSON failed but appended %q", got)
		}
	case !bytes.Equal(got, want):
		t.Fatalf("AppendJSON differs from json.Marshal\n got: %s\nwant: %s", got, want)
	}
	samePayload(t, e)
}

// samePayload is sameAsMarshal for AppendPayload and
// envelope.MarshalPayload (no HTML escaping).
func samePayload(t testing.TB, e *event.Event) {
	t.Helper()
	want, werr := envelope.MarshalPayload(e)
	got, gerr := event.AppendPayload([]byte("keep"), e)
	if !bytes.HasPrefix(got, []byte("keep")) {
		t.Fatalf("AppendPayload lost the bytes already in dst: %q", got)
	}
	got = got[len("keep"):]
	switch {
	case (werr == nil) != (gerr == nil):
		t.Fatalf("MarshalPayload error %v, AppendPayload error %v for %#v", werr, gerr, e)
	case werr != nil:
		if werr.Error() != gerr.Error() || len(got) != 0 {
			t.Fatalf("errors differ: MarshalPayload %q, AppendPayload %q (appended %q)", werr, gerr, got)
		}
	case !bytes.Equal(got, want):
		t.Fatalf("AppendPayload differs from envelope.MarshalPayload\n got: %s\nwant: %s", got, want)
	}
}

// corpusFiles lists the provider's native outputs in the copied real CLI
// corpus: everything a normalizer reads there (stdout streams, raw SSE and
// bus payloads), not requests, stderr or the manifest.
func corpusFiles(t *testing.T, name string) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join("..", "testdata", "corpus", name, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range all {
		base := filepath.Base(f)
		if strings.Contains(base, ".requests.") || strings.Contains(base, ".stderr.") || strings.HasSuffix(base, ".json") {
			continue
		}
		out = append(out, f)
	}
	return out
}

// TestAppendJSONCorpus compares AppendJSON with json.Marshal on every
// event the real corpus and a generated run of each provider normalize to
// (with and without cumulative deltas, and through the history
// normalizer where there is one).
func TestAppendJSONCorpus(t *testing.T) {
	for _, d := range providers.All() {
		t.Run(d.Name, func(t *testing.T) {
			var gr bytes.Buffer
			if _, err := gen.Write(&gr, gen.Options{Provider: d.Name, Size: 1 << 20, Seed: 3, SecretEvery: 5}); err != nil {
				t.Fatal(err)
			}
			inputs := map[string][]byte{"generated": gr.Bytes()}
			for _, f := range corpusFiles(t, d.Name) {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				inputs[f] = b
			}
			norms := []func() event.Normalizer{
				func() event.Normalizer { return d.Normalizer(provider.Options{}) },
				func() event.Normalizer { return d.Normalizer(provider.Options{CumulativeDeltas: true}) },
			}
			if d.History != nil {
				norms = append(norms, d.History)
			}
			events := 0
			kinds := map[event.Kind]bool{}
			for name, in := range inputs {
				for _, mk := range norms {
					evs, err := event.ReadAll(bytes.NewReader(in), mk())
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					for i := range evs {
						sameAsMarshal(t, &evs[i])
						kinds[evs[i].Kind] = true
					}
					events += len(evs)
				}
			}
			if events < 100 {
				t.Fatalf("only %d events compared", events)
			}
			t.Logf("%d events compared, %d kinds", events, len(kinds))
		})
	}
}

// TestAppendJSONCases covers what the corpus may not hold: every field
// set, every escape, invalid UTF-8, floats in each format, raw input that
// needs compacting or is invalid, and NaN.
func TestAppendJSONCases(t *testing.T) {
	code, zero := 3, 0
	full := event.Event{
		Kind: event.KindTool, Phase: event.PhaseCompleted, SessionID: "s", TurnID: "t", MessageID: "m",
		PartID: "p", ToolCallID: "c", ParentToolCallID: "pc",
		Agent:        &event.Agent{ID: "a", Name: "n", Description: "d", Status: "running", Summary: "sum"},
		MessagePhase: event.MessagePhaseFinalAnswer, Text: "x",
		Tool:       &event.Tool{Name: "Bash", Summary: "ls", Input: json.RawMessage(`{"a": [1, 2.5e3, true, null, "<&>"]}`)},
		ToolResult: &event.ToolResult{IsError: true, Output: "out", OutputBytes: 3},
		Usage:      &event.Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4, ReasoningTokens: -5, Cumulative: true},
		Result:     &event.Result{Subtype: "success", IsError: true, NumTurns: 2, CostUSD: 0.0123, DurationMs: 99, Text: "done"},
		Error:      &event.Error{Type: "overloaded", Message: "m", Fatal: true},
		Retry:      &event.Retry{Attempt: 1, MaxRetries: 10, DelayMs: 500, Status: 529, Error: "e"},
		Permission: &event.Permission{ID: "i", Tool: "t", Summary: "s", Patterns: []string{"a", "<b>"}, Reply: "once", Message: "m"},
		RateLimit:  &event.RateLimit{Status: "allowed", Type: "five_hour", ResetsAt: 1700000000, Utilization: 0.5},
		Hook:       &event.Hook{ID: "h", Name: "PreToolUse:Bash", Event: "PreToolUse", Outcome: "success", ExitCode: &code, Output: "o"},
		Status:     "busy", Model: "m", Version: "v", NativeType: "system/x", Cause: []int64{1, -2, 1 << 40},
	}
	cases := []event.Event{
		{},
		{Kind: event.KindText, Phase: event.PhaseDelta},
		full,
		{Agent: &event.Agent{}, Tool: &event.Tool{}, ToolResult: &event.ToolResult{}, Usage: &event.Usage{},
			Result: &event.Result{}, Error: &event.Error{}, Retry: &event.Retry{}, Permission: &event.Permission{Patterns: []string{}},
			RateLimit: &event.RateLimit{}, Hook: &event.Hook{ExitCode: &zero}, Cause: []int64{}},
		{Permission: &event.Permission{Patterns: []string{""}}, Hook: &event.Hook{Output: "x"}},
		{Text: "quote\" backslash\\ slash/ \b\f\n\r\t \x00\x01\x1f\x7f <script>&amp;</script>"},
		{Text: "invalid \xff\xfe utf8 \xe2\x80 cut \xc3 and \xed\xa0\x80 surrogate, \u2028 \u2029 \u2027 \u202a é 日本 🎉"},
		{Text: "\xe2\x80\xa8\xe2\x80\xa9", SessionID: "\x80"},
	}
	for _, f := range []float64{1, -1, 0.1, 1e-6, 9.99e-7, 1e-7, 1.5e-10, 1e20, 1e21, 1.234e21, 123456789.125,
		-1e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, math.Copysign(0, -1), 5e-324, 1e100} {
		cases = append(cases, event.Event{Result: &event.Result{CostUSD: f}}, event.Event{RateLimit: &event.RateLimit{Utilization: f}})
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		cases = append(cases, event.Event{Result: &event.Result{CostUSD: f}}, event.Event{RateLimit: &event.RateLimit{Utilization: f}})
	}
	for _, raw := range []string{`{}`, ` [ ] `, "\t{\"a\" :\n 1 }\r\n", `"<\u2028>"`, "\"\xe2\x80\xa8 \xe2\x80\xa9 \xff\"",
		`{"k":"a\"b\\"}`, `12`, `-0.5e+3`, `null`, `true`,
		// invalid: json.Marshal's error must come back
		``, ` `, `{`, `{"a"}`, `[1,]`, `01`, `1.`, `"\x"`, "\"\x01\"", `{"a":1}{}`, `tru`, `[1 2]`, `{1:2}`,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat("[", 9999) + "[1]" + strings.Repeat("]", 9999),
		strings.Repeat("[", 10000) + "[1]" + strings.Repeat("]", 10000),
		strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000),
		strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001)} {
		cases = append(cases, event.Event{Tool: &event.Tool{Name: "n", Input: json.RawMessage(raw)}})
	}
	// Every byte that needs escaping, at every offset of the first two
	// eight-byte words (the encoder skips plain words whole).
	for _, c := range []string{"\x00", "\x1f", "\x7f", "\"", "\\", "<", ">", "&", "é", "\u2028", "\u2029", "\xff", "\xe2\x80", "🎉"} {
		for pos := range 18 {
			cases = append(cases, event.Event{Text: strings.Repeat("a", pos) + c + strings.Repeat("b", 9)})
		}
	}
	for i := range cases {
		sameAsMarshal(t, &cases[i])
	}
}

// TestAppendJSONMultiByte compares AppendJSON with json.Marshal on every
// two-byte sequence and on three-byte ones from every lead byte E0-EF
// (continuation bytes at and around the edges of the valid ranges, and
// U+2028 and U+2029), each in the middle of a text, at its end, and cut.
func TestAppendJSONMultiByte(t *testing.T) {
	var texts []string
	for b1 := 0x80; b1 < 0x100; b1++ {
		for b2 := range 0x100 {
			texts = append(texts, string([]byte{'a', byte(b1), byte(b2), 'z'}), string([]byte{'a', byte(b1), byte(b2)}))
		}
	}
	edges := []byte{0x00, 0x7F, 0x80, 0x81, 0x9F, 0xA0, 0xA8, 0xA9, 0xAA, 0xBF, 0xC0, 0xFF}
	for b1 := 0xE0; b1 < 0xF0; b1++ {
		for b2 := 0x70; b2 < 0xD0; b2++ {
			for _, b3 := range edges {
				seq := []byte{byte(b1), byte(b2), b3}
				texts = append(texts, "x"+string(seq)+"y", "x"+string(seq), "x"+string(seq[:2]))
			}
		}
	}
	for _, text := range texts {
		sameAsMarshal(t, &event.Event{Kind: event.KindText, Phase: event.PhaseDelta, Text: text})
	}
}

// FuzzAppendJSON compares AppendJSON with json.Marshal on events whose
// strings, numbers and tool input come from the fuzzer.
func FuzzAppendJSON(f *testing.F) {
	f.Add("text", "id", `{"a": 1}`, 0.5, int64(3), true)
	f.Add("<\xff\u2028>", "", ` [ "\u2029" , {} ] `, 1e-7, int64(-1), false)
	f.Add("", "\x00", `{"a"`, math.Inf(1), int64(0), true)
	f.Fuzz(func(t *testing.T, text, id, input string, fl float64, n int64, b bool) {
		code := int(n)
		e := event.Event{Kind: event.Kind(id), Phase: event.Phase(text), Text: text, SessionID: id, Cause: []int64{n},
			Tool:   &event.Tool{Name: id, Summary: text, Input: json.RawMessage(input)},
			Result: &event.Result{Subtype: id, IsError: b, CostUSD: fl, NumTurns: code, DurationMs: n, Text: text},
			Hook:   &event.Hook{ExitCode: &code, Output: text},
		}
		if b {
			e.RateLimit = &event.RateLimit{Utilization: fl, Type: text}
			e.Permission = &event.Permission{Patterns: []string{text, id}}
			e.Agent = &event.Agent{Summary: text}
		}
		sameAsMarshal(t, &e)
	})
}

// BenchmarkAppendJSON compares the encoder with json.Marshal on the events
// of a generated Claude run.
func BenchmarkAppendJSON(b *testing.B) {
	var gr bytes.Buffer
	if _, err := gen.Write(&gr, gen.Options{Provider: "claude", Size: 4 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	d, _ := providers.Lookup("claude")
	evs, err := event.ReadAll(bytes.NewReader(gr.Bytes()), d.Normalizer(provider.Options{}))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			for i := range evs {
				buf, _ = event.AppendJSON(buf[:0], &evs[i])
			}
		}
	})
	b.Run("Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range evs {
				_, _ = json.Marshal(&evs[i])
			}
		}
	})
}
