package jsonpick

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

// pickSeeds are corner cases of the JSON grammar (synthetic) and the lines
// of every provider's real corpus.
func pickSeeds(t testing.TB) [][]byte {
	seeds := [][]byte{
		[]byte(`{}`), []byte(` [ ] `), []byte(`{"a":1,}`), []byte(`[1,]`), []byte(`{,}`), []byte(`01`),
		[]byte(`-0.5e+3`), []byte(`1.`), []byte(`-`), []byte(`1e`), []byte(`"\u00e9\ud83d\ude00\ud800x"`),
		[]byte(`"a\qb"`), []byte("\"tab\there\""), []byte(`{"k\u0074":"v","a":[true,false,null,{"b":"c\"d"}]}`),
		[]byte(`"unterminated`), []byte(`{"a":1}{"b":2}`), []byte(`nul`), []byte(`truex`), []byte(``),
		[]byte(`"12345678\"12345678\\"`), []byte(`"` + strings.Repeat("ab\\n", 700) + `"`),
		[]byte(`"` + strings.Repeat("x", 2046) + `\u00e9\ud83d\ude00\ud800é"`), []byte(`"` + strings.Repeat("é", 1100) + `"`),
		[]byte(`"` + strings.Repeat("y", 2047) + `\ud83d\ude00"`), []byte(strings.Repeat("[", 100) + strings.Repeat("]", 100)),
	}
	paths, _ := filepath.Glob("../../testdata/corpus/*/*.jsonl")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, bytes.Split(b, []byte("\n"))...)
	}
	return seeds
}

// checkPick compares valid with gjson.ValidBytes and, on a valid object,
// pick and each with gjson's Get and Array on every member.
func checkPick(t *testing.T, line []byte) {
	if got, want := Valid(line), gjson.ValidBytes(line); got != want {
		t.Fatalf("valid(%q) = %v, gjson.ValidBytes says %v", line, got, want)
	}
	if !gjson.ValidBytes(line) {
		return
	}
	var walk func(v gjson.Result)
	walk = func(v gjson.Result) {
		switch {
		case v.IsObject():
			var keys []string
			v.ForEach(func(k, _ gjson.Result) bool {
				if !slices.Contains(keys, k.String()) { // pick wants distinct keys
					keys = append(keys, k.String())
				}
				return true
			})
			keys = append(keys, "absent")
			out := make([]gjson.Result, len(keys))
			Pick(v, keys, out)
			checkNested(t, v, keys, out)
			raws := make([]string, len(keys))
			PickRaw(v, keys, raws)
			for i, k := range keys {
				want := v.Get(gjson.Escape(k))
				if raws[i] != want.Raw {
					t.Fatalf("pickRaw %q of %s: %q; Get gives %+v", k, v.Raw, raws[i], want)
				}
				if raw, ok := RawMember(v.Raw, k); ok != want.Exists() || raw != want.Raw {
					t.Fatalf("rawMember %q of %s: %q, %v; Get gives %+v", k, v.Raw, raw, ok, want)
				}
				s := want.String()
				if out, size := CutMember(v, k); out != textcut.Output(s) || size != len(s) {
					t.Fatalf("cutMember %q of %s: %q, %d; want %q, %d", k, v.Raw, out, size, textcut.Output(s), len(s))
				}
				got := out[i]
				got.Index, want.Index = 0, 0
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("pick %q of %s: %+v, Get gives %+v", k, v.Raw, got, want)
				}
				walk(want)
			}
		case v.Type == gjson.String:
			out, size := CutString(v.Raw)
			if want := textcut.Output(v.Str); out != want || size != len(v.Str) {
				t.Fatalf("cutString(%s) = %q, %d; want %q, %d", v.Raw, out, size, want, len(v.Str))
			}
		case v.IsArray():
			var got []gjson.Result
			Each(v, func(x gjson.Result) { got = append(got, x) })
			want := v.Array()
			for i := range want {
				want[i].Index = 0
			}
			for i := range got {
				got[i].Index = 0
			}
			if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
				t.Fatalf("each of %s: %+v, Array gives %+v", v.Raw, got, want)
			}
			// EachPickRaw gives each element and PickRaw's members of it.
			keys := []string{"type", "content", "absent", "a"}
			out, wantOut := make([]string, len(keys)), make([]string, len(keys))
			k := 0
			EachPickRaw(v, keys, out, func(x gjson.Result) {
				x.Index = 0
				if k >= len(want) || !reflect.DeepEqual(x, want[k]) {
					t.Fatalf("eachPickRaw of %s: element %d is %+v", v.Raw, k, x)
				}
				PickRaw(x, keys, wantOut)
				if !slices.Equal(out, wantOut) {
					t.Fatalf("eachPickRaw of %s: element %d's members %q, PickRaw gives %q", v.Raw, k, out, wantOut)
				}
				k++
			})
			if k != len(want) {
				t.Fatalf("eachPickRaw of %s: %d elements, Array gives %d", v.Raw, k, len(want))
			}
			for _, x := range want {
				walk(x)
			}
		}
	}
	walk(gjson.ParseBytes(line))
}

// TestCutStringCounts checks CutString against textcut.Output on long
// strings of random text with runs of backslashes, quotes, control bytes
// and (in some) \u escapes and surrogate pairs before and after the cut,
// encoded by encoding/json, so that the length counted past the cut
// without stopping at each escape is checked.
func TestCutStringCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "xyz", `\`, `\\`, `\\\`, `"`, `\"`, "\n", "\t", "é", "日本"}
	unicode := []string{"\x01", "\u2028", "😀", "<"} // encoding/json writes all but the emoji as \u escapes
	for n := range 300 {
		var b strings.Builder
		size := textcut.OutputBytes - 50 + r.IntN(100) + r.IntN(3)*2000
		for b.Len() < size {
			if n%3 == 0 && r.IntN(50) == 0 {
				b.WriteString(unicode[r.IntN(len(unicode))])
				continue
			}
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		want := b.String()
		raw, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		out, got := CutString(string(raw))
		if got != len(want) || out != textcut.Output(want) {
			t.Fatalf("CutString(%.80s…) = %d bytes, cut %q…; want %d, %q…", raw, got, out[:min(len(out), 40)], len(want), textcut.Output(want)[:40])
		}
	}
}

func TestPick(t *testing.T) {
	for _, l := range pickSeeds(t) {
		checkPick(t, l)
	}
}

func FuzzPick(f *testing.F) {
	for _, l := range pickSeeds(f) {
		f.Add(l)
	}
	f.Fuzz(checkPick)
}

// TestPickEscapesAtEveryOffset puts escaped quotes and backslashes at
// every offset of the words member() tests eight bytes at a time, and past
// them (where IndexByte takes over), in keys and in values.
func TestPickEscapesAtEveryOffset(t *testing.T) {
	for off := range 80 {
		pad := strings.Repeat("p", off)
		for _, esc := range []string{`\"`, `\\`, `\\\"`, `\n`, `\u0041`, `\\\\`} {
			line := []byte(`{"` + pad + esc + `k":"` + pad + esc + `v` + esc + `","after":"` + esc + pad + `"}`)
			checkPick(t, line)
		}
	}
}

// TestParseValueLikeParse: ParseValue's shortcuts give gjson.Parse's
// Result exactly.
func TestParseValueLikeParse(t *testing.T) {
	for _, v := range []string{`{}`, `{"a":1}`, `[]`, `[1,{"b":null}]`, `null`, `true`, `false`, `0`, `-1.5e3`,
		`"s"`, `"a\nb"`, `""`, ``, `nul`, `tru`} {
		if got, want := ParseValue(v), gjson.Parse(v); !reflect.DeepEqual(got, want) {
			t.Errorf("ParseValue(%q) = %+v, gjson.Parse gives %+v", v, got, want)
		}
	}
}

// distinctKeys lists v's member names once each, then "absent".
func distinctKeys(v gjson.Result) []string {
	var keys []string
	v.ForEach(func(k, _ gjson.Result) bool {
		if !slices.Contains(keys, k.String()) {
			keys = append(keys, k.String())
		}
		return true
	})
	return append(keys, "absent")
}

// checkNested checks PickNested on v against Pick (whose result on keys
// is want), with a Sub for every member whose value is an object and
// another level below those.
func checkNested(t *testing.T, v gjson.Result, keys []string, want []gjson.Result) {
	t.Helper()
	top := NewNested(keys)
	for i := range keys {
		if want[i].IsObject() {
			sub := NewNested(distinctKeys(want[i]))
			for j, k := range sub.Keys {
				if w := want[i].Get(gjson.Escape(k)); w.IsObject() {
					sub.Sub[j] = NewNested(distinctKeys(w))
				}
			}
			top.Sub[i] = sub
		}
	}
	// Twice: a Nested is reused, and must not keep the first walk's values.
	for range 2 {
		PickNested(v, top)
		var cmpLevel func(n *Nested, want []gjson.Result)
		cmpLevel = func(n *Nested, want []gjson.Result) {
			for i := range n.Keys {
				got, w := n.Out[i], want[i]
				got.Index, w.Index = 0, 0
				if !reflect.DeepEqual(got, w) {
					t.Fatalf("pickNested %q of %s: %+v, Pick gives %+v", n.Keys[i], v.Raw, got, w)
				}
				if n.Sub[i] != nil {
					sw := make([]gjson.Result, len(n.Sub[i].Keys))
					Pick(want[i], n.Sub[i].Keys, sw)
					cmpLevel(n.Sub[i], sw)
				}
			}
		}
		cmpLevel(top, want)
	}
}

// TestNestedEnough: a walk stops after the member at which Enough says
// so, with what it read until then as a walk without Enough reads it, and
// the members after it unread; Enough is asked only after members it
// names, and a walk it never stops reads them all.
func TestNestedEnough(t *testing.T) {
	line := `{"type":"user","message":{"id":"m1","content":"x"},"parent":null,"error":"late","type":"again"}`
	full := NewNested([]string{"type", "message", "parent", "error"})
	full.Sub[1] = NewNested([]string{"id"})
	PickNested(gjson.Parse(line), full)

	stop := NewNested([]string{"type", "message", "parent", "error"})
	stop.Sub[1] = NewNested([]string{"id"})
	asked := 0
	stop.Enough = func() bool { asked++; return stop.Out[2].Exists() }
	PickNested(gjson.Parse(line), stop)
	for j := range 3 {
		if stop.Out[j].Raw != full.Out[j].Raw {
			t.Errorf("member %d: %q, want %q as without Enough", j, stop.Out[j].Raw, full.Out[j].Raw)
		}
	}
	if stop.Sub[1].Out[0].String() != "m1" {
		t.Errorf("nested member: %q", stop.Sub[1].Out[0].Raw)
	}
	if stop.Out[3].Exists() || !full.Out[3].Exists() {
		t.Errorf("error after the stop: %q (without Enough %q)", stop.Out[3].Raw, full.Out[3].Raw)
	}
	if asked != 3 {
		t.Errorf("Enough asked %d times, want 3 (after type, message, parent)", asked)
	}
	// Reused for the next line, the Nested starts afresh.
	PickNested(gjson.Parse(`{"error":"e","type":"t"}`), stop)
	if stop.Out[2].Exists() || stop.Out[1].Exists() || stop.Out[3].String() != "e" || stop.Out[0].String() != "t" {
		t.Errorf("second line: %v", stop.Out)
	}
}
