package jsonwalk_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evcap/evcap/internal/jsonwalk"
	"github.com/evcap/evcap/internal/lines"
	"github.com/tidwall/gjson"
)

// corpusLines returns up to n lines of each real CLI stdout capture.
func corpusLines(t testing.TB, n int) [][]byte {
	t.Helper()
	files, err := filepath.Glob("../../testdata/corpus/*/*.stdout.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no corpus files under ../../testdata/corpus: the tests would exercise nothing")
	}
	var out [][]byte
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		r := lines.NewReader(fh)
		for k := 0; k < n; k++ {
			l, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out = append(out, bytes.Clone(l))
		}
		fh.Close()
	}
	return out
}

// strs collects every key and string value in walk order.
type strs struct{ got []string }

func (s *strs) Visit(_ *jsonwalk.Walker, t *jsonwalk.Token) error {
	if t.Kind == jsonwalk.Key || t.Kind == jsonwalk.String {
		s.got = append(s.got, string(t.Text()))
	}
	return nil
}

// jsonStrings lists every key and string value of in, in order, as
// encoding/json decodes them.
func jsonStrings(t *testing.T, in []byte) []string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(in))
	d.UseNumber()
	var out []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		if s, ok := tok.(string); ok {
			out = append(out, s)
		}
	}
}

// depth is the nesting depth of valid JSON (0 for a scalar).
func depth(in []byte) int {
	d, m := 0, 0
	inStr := false
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			d++
			m = max(m, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return m
}

// checkEquivalent is the property FuzzWalk checks.
func checkEquivalent(t *testing.T, in []byte) {
	var w jsonwalk.Walker
	var s strs
	out, changed, err := w.Walk(in, &s)
	valid := json.Valid(in)
	// redact ran gjson's validator before its walker: the JSON/text split
	// of its callers stays where it was only if the two agree.
	if gv := gjson.ValidBytes(in); gv != valid {
		t.Fatalf("gjson.ValidBytes = %v, json.Valid = %v for %q", gv, valid, in)
	}
	if depth(in) > jsonwalk.MaxDepth && valid {
		if !errors.Is(err, jsonwalk.ErrDepth) {
			t.Fatalf("nested %d deep: err %v, want ErrDepth", depth(in), err)
		}
		return
	}
	if (err == nil) != valid {
		t.Fatalf("Walk err = %v, json.Valid = %v for %q", err, valid, in)
	}
	if err != nil {
		if !errors.Is(err, jsonwalk.ErrSyntax) {
			t.Fatalf("error %v does not wrap ErrSyntax", err)
		}
		return
	}
	if changed || !bytes.Equal(out, in) {
		t.Fatalf("nothing rewritten, but output differs: %q", out)
	}
	if want := jsonStrings(t, in); !reflect.DeepEqual(s.got, want) && (len(s.got) > 0 || len(want) > 0) {
		t.Fatalf("decoded strings differ from encoding/json:\n got %q\nwant %q", s.got, want)
	}

	// Splicing every string with its own text keeps the decoded value.
	ident := jsonwalk.VisitorFunc(func(_ *jsonwalk.Walker, t *jsonwalk.Token) error {
		if t.Kind == jsonwalk.Key || t.Kind == jsonwalk.String {
			t.Splice(0, len(t.Text()), bytes.Clone(t.Text()))
		}
		return nil
	})
	out, _, err = w.Walk(in, ident)
	if err != nil {
		t.Fatal(err)
	}
	// Numbers compared as written: 1e700 is valid JSON but no float64.
	var a, b any
	if err := unmarshalNumbers(in, &a); err != nil {
		t.Fatal(err)
	}
	if err := unmarshalNumbers(out, &b); err != nil {
		t.Fatalf("spliced output is not JSON: %v: %q", err, out)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("identity splice changed the value:\n in %q\nout %q", in, out)
	}
}

// checkSpliced checks AppendSpliced against a second walk: every string
// and key gets a splice (a middle third, at rune starts, replaced by text
// that needs escaping), and what AppendSpliced says must be what a walk of
// the output decodes, string by string.
func checkSpliced(t *testing.T, in []byte) {
	for _, repl := range []string{"<\\x\"\n\u00e9\x01>", "[REDACTED:rule]"} {
		for _, aligned := range []bool{true, false} {
			checkSplicedWith(t, in, []byte(repl), aligned)
		}
	}
}

// checkSplicedWith is checkSpliced with one replacement, its bounds moved
// to rune starts or not.
func checkSplicedWith(t *testing.T, in, repl []byte, aligned bool) {
	var w jsonwalk.Walker
	var said []string
	cut := jsonwalk.VisitorFunc(func(_ *jsonwalk.Walker, t *jsonwalk.Token) error {
		if t.Kind != jsonwalk.Key && t.Kind != jsonwalk.String {
			return nil
		}
		if t.Spliced() {
			return errors.New("Spliced before any Splice")
		}
		text := t.Text()
		a, b := len(text)/3, 2*len(text)/3
		for aligned && a > 0 && !utf8.RuneStart(text[a]) {
			a--
		}
		for aligned && b < len(text) && !utf8.RuneStart(text[b]) {
			b++
		}
		t.Splice(a, b, repl)
		if !t.Spliced() {
			return errors.New("not Spliced after Splice")
		}
		said = append(said, string(t.AppendSpliced(nil)))
		return nil
	})
	out, _, err := w.Walk(in, cut)
	if err != nil {
		return // invalid input: checkEquivalent covers it
	}
	var again strs
	var w2 jsonwalk.Walker
	if _, _, err := w2.Walk(out, &again); err != nil {
		t.Fatalf("spliced output is not JSON: %v: %q", err, out)
	}
	if !reflect.DeepEqual(said, again.got) && (len(said) > 0 || len(again.got) > 0) {
		t.Fatalf("AppendSpliced differs from a walk of the output:\n said %q\nwalked %q\n   in %q", said, again.got, in)
	}
}

func TestAppendSpliced(t *testing.T) {
	tricky := []byte(`{"\u0041\ud83d\ude00b":["\ud83d","x\"\\y\/","` + "\xff\xfeab" + `\u00e9cd","abc",""]}`)
	if !json.Valid(tricky) {
		t.Fatalf("test input is not JSON: %q", tricky)
	}
	n := 0
	for _, l := range append(corpusLines(t, 200), tricky) {
		checkSpliced(t, l)
		n++
	}
	if n < 100 {
		t.Fatalf("only %d lines", n)
	}
}

func unmarshalNumbers(in []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(in))
	d.UseNumber()
	return d.Decode(v)
}

func FuzzWalk(f *testing.F) {
	for _, l := range corpusLines(f, 40) {
		f.Add(l)
	}
	for _, s := range []string{`"\ud83d\ude00"`, `"\ud83d"`, `"\udc00x"`, "\"\xff\xfe\"", `{"a":[1,-0.5e+3,true,null]}`,
		`[01]`, `{"a" 1}`, `"\u00e9\/\\"`, ` {} `, `[1,]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkEquivalent(t, in)
		checkSpliced(t, in)
	})
}

func TestCorpusEquivalent(t *testing.T) {
	n := 0
	for _, l := range corpusLines(t, 1<<20) {
		checkEquivalent(t, l)
		n++
	}
	if n < 100 {
		t.Fatalf("only %d corpus lines", n)
	}
}

func TestPathsAndKinds(t *testing.T) {
	in := []byte(`{"a":{"b~/":[10,"x",{"c":null}]},"d\u0065":true}`)
	var got []string
	var w jsonwalk.Walker
	_, _, err := w.Walk(in, jsonwalk.VisitorFunc(func(w *jsonwalk.Walker, t *jsonwalk.Token) error {
		got = append(got, string(jsonwalk.AppendPointer(nil, w.Path()))+" "+string(t.Raw()))
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		` {`, ` "a"`, `/a {`, `/a "b~/"`, `/a/b~0~1 [`, `/a/b~0~1/0 10`, `/a/b~0~1/1 "x"`, `/a/b~0~1/2 {`,
		`/a/b~0~1/2 "c"`, `/a/b~0~1/2/c null`, `/a/b~0~1/2 }`, `/a/b~0~1 ]`, `/a }`, ` "d\u0065"`, `/de true`, ` }`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("tokens:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestRewrite(t *testing.T) {
	cases := []struct {
		name, in, want string
		v              jsonwalk.VisitorFunc
		ptrs           string // pointers seen at String tokens, after key rewrites
	}{
		{
			name: "splice keeps escapes around the edit",
			in:   `{"k":"a\u0041 sk-SECRET \n\"end"}`,
			want: `{"k":"a\u0041 [X] \n\"end"}`,
			v: func(_ *jsonwalk.Walker, t *jsonwalk.Token) error {
				if t.Kind == jsonwalk.String {
					i := bytes.Index(t.Text(), []byte("sk-"))
					t.Splice(i, i+len("sk-SECRET"), []byte("[X]"))
				}
				return nil
			},
		},
		{
			name: "splice text is escaped",
			in:   `["ab"]`,
			want: `["a\"\\\n"]`,
			v: func(_ *jsonwalk.Walker, t *jsonwalk.Token) error {
				if t.Kind == jsonwalk.String {
					t.Splice(1, 2, []byte("\"\\\n"))
				}
				return nil
			},
		},
		{
			name: "rewritten key is in the path",
			in:   `{"ghp_x": {"v": "1"}}`,
			want: `{"[K]": {"v": "1"}}`,
			ptrs: "/[K]/v",
			v: func(_ *jsonwalk.Walker, t *jsonwalk.Token) error {
				if t.Kind == jsonwalk.Key && string(t.Text()) == "ghp_x" {
					t.Splice(0, 5, []byte("[K]"))
				}
				return nil
			},
		},
		{
			name: "replace numbers and strings whole",
			in:   `{"t": 1700000000, "s": "\u0061", "n": null}`,
			want: `{"t": 0, "s": "b", "n": null}`,
			v: func(_ *jsonwalk.Walker, t *jsonwalk.Token) error {
				switch t.Kind {
				case jsonwalk.Number:
					t.Replace([]byte("0"))
				case jsonwalk.String:
					t.Replace([]byte(`"b"`))
				}
				return nil
			},
		},
	}
	var w jsonwalk.Walker
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ptrs []string
			v := jsonwalk.VisitorFunc(func(w *jsonwalk.Walker, tok *jsonwalk.Token) error {
				if tok.Kind == jsonwalk.String {
					ptrs = append(ptrs, string(jsonwalk.AppendPointer(nil, w.Path())))
				}
				return c.v(w, tok)
			})
			out, changed, err := w.Walk([]byte(c.in), v)
			if err != nil {
				t.Fatal(err)
			}
			if !changed || string(out) != c.want {
				t.Fatalf("got %q (changed %v), want %q", out, changed, c.want)
			}
			if c.ptrs != "" && strings.Join(ptrs, " ") != c.ptrs {
				t.Fatalf("pointers %q, want %q", ptrs, c.ptrs)
			}
		})
	}
}

func TestDepth(t *testing.T) {
	var w jsonwalk.Walker
	nop := jsonwalk.VisitorFunc(func(*jsonwalk.Walker, *jsonwalk.Token) error { return nil })
	ok := strings.Repeat("[", jsonwalk.MaxDepth+1) + strings.Repeat("]", jsonwalk.MaxDepth+1)
	if _, _, err := w.Walk([]byte(ok), nop); err != nil {
		t.Fatalf("%d nested arrays: %v", jsonwalk.MaxDepth+1, err)
	}
	deep := "[" + ok + "]"
	if _, _, err := w.Walk([]byte(deep), nop); !errors.Is(err, jsonwalk.ErrDepth) {
		t.Fatalf("%d nested arrays: err %v, want ErrDepth", jsonwalk.MaxDepth+2, err)
	}
}

func TestVisitorError(t *testing.T) {
	stop := errors.New("stop")
	var w jsonwalk.Walker
	_, _, err := w.Walk([]byte(`[1,2]`), jsonwalk.VisitorFunc(func(_ *jsonwalk.Walker, t *jsonwalk.Token) error {
		if t.Kind == jsonwalk.Number {
			return stop
		}
		return nil
	}))
	if err != stop {
		t.Fatalf("err %v, want the visitor's", err)
	}
}

func TestWalkAllocsNothing(t *testing.T) {
	in := corpusLines(t, 5)
	var w jsonwalk.Walker
	var s strs
	s.got = make([]string, 0, 1)
	nop := jsonwalk.VisitorFunc(func(*jsonwalk.Walker, *jsonwalk.Token) error { return nil })
	for _, l := range in {
		_, _, _ = w.Walk(l, nop)
	}
	allocs := testing.AllocsPerRun(10, func() {
		for _, l := range in {
			if _, _, err := w.Walk(l, nop); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs > 0 {
		t.Fatalf("%v allocations per pass over %d lines, want 0", allocs, len(in))
	}
}
