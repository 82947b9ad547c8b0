package redact

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/evcap/evcap/internal/jsonwalk"
)

// seen records what a Visitor after redaction sees of every token: its
// kind, path and text (a string's text as AppendSpliced gives it), and
// rewrites strings that hold a chosen byte, so that a Replace over
// redaction's splices is exercised too.
type seen struct {
	got  []string
	text []byte
	raw  []byte
}

func (s *seen) Visit(w *jsonwalk.Walker, t *jsonwalk.Token) error {
	text := t.Text()
	if t.Kind == jsonwalk.String || t.Kind == jsonwalk.Key {
		s.text = t.AppendSpliced(s.text[:0])
		text = s.text
	}
	s.got = append(s.got, string(jsonwalk.AppendPointer(nil, w.Path()))+"|"+string(rune('0'+t.Kind))+"|"+string(text))
	if t.Kind == jsonwalk.String && bytes.IndexByte(text, 'q') >= 0 {
		s.raw = append(s.raw[:0], `"rewritten:`...)
		s.raw = jsonwalk.AppendEscaped(s.raw, text)
		s.raw = append(s.raw, '"')
		t.Replace(s.raw)
	}
	return nil
}

// TestJSONVisitIsTwoWalks checks the one walk of JSONVisit against the two
// walks it replaces (JSON, then a walk of its output with the same
// Visitor): the same output bytes, the same findings, and the Visitor
// seeing the same tokens, paths and texts, on every corpus line and on
// every planted secret in every embedding.
func TestJSONVisitIsTwoWalks(t *testing.T) {
	ins := corpusLines(t)
	for _, p := range positives() {
		for _, e := range embeddings {
			ins = append(ins, []byte(e.wrap(p.text())))
		}
	}
	// Keys that are redacted, escapes around a secret, a long string cut.
	ins = append(ins, []byte(`{"/root/projects/demo/a":"x\u0041q","sk-`+"ant-api03-"+strings.Repeat("Ab1", 31)+`AA":1,"t":"\/root\/x q"}`),
		[]byte(`["`+strings.Repeat("q", 70<<10)+` /root/y"]`))
	for _, r := range []*Redactor{corpusRedactor(t), testRedactor(t)} {
		checked, redacted := 0, 0
		var w jsonwalk.Walker
		for _, in := range ins {
			want, wantF, err := r.JSON(in)
			if err != nil {
				continue // not JSON: the text lines of the corpus
			}
			var two seen
			var w2 jsonwalk.Walker
			wantOut, changed2, err := w2.Walk(want, &two)
			if err != nil {
				t.Fatalf("JSON's output is not JSON: %v", err)
			}
			var one seen
			got, changed, gotF, err := r.JSONVisit(&w, in, &one)
			if err != nil {
				t.Fatalf("JSONVisit: %v on %q", err, in)
			}
			if !bytes.Equal(got, wantOut) {
				t.Fatalf("output differs:\n one walk %q\ntwo walks %q\n    input %q", got, wantOut, in)
			}
			if wantChanged := len(wantF) > 0 || changed2; changed != wantChanged {
				t.Fatalf("changed = %v, want %v for %q", changed, wantChanged, in)
			}
			if !reflect.DeepEqual(gotF, wantF) {
				t.Fatalf("findings differ:\n one walk %v\ntwo walks %v", gotF, wantF)
			}
			if !reflect.DeepEqual(one.got, two.got) {
				t.Fatalf("the Visitor saw different tokens:\n one walk %q\ntwo walks %q", one.got, two.got)
			}
			checked++
			if len(wantF) > 0 {
				redacted++
			}
		}
		if checked < 1000 || redacted < 100 {
			t.Fatalf("only %d JSON inputs (%d redacted): the test exercised too little", checked, redacted)
		}
	}
}

// TestJSONVisitError: invalid JSON wraps ErrNotJSON, a Visitor's own
// error comes back as it is.
func TestJSONVisitError(t *testing.T) {
	r := testRedactor(t)
	var w jsonwalk.Walker
	if _, _, _, err := r.JSONVisit(&w, []byte(`{"a":`), nil); !errors.Is(err, ErrNotJSON) {
		t.Fatalf("err = %v, want ErrNotJSON", err)
	}
	stop := jsonwalk.VisitorFunc(func(*jsonwalk.Walker, *jsonwalk.Token) error { return errStop })
	if _, _, _, err := r.JSONVisit(&w, []byte(`{"a":"b"}`), stop); err != errStop {
		t.Fatalf("err = %v, want the Visitor's", err)
	}
}

var errStop = errors.New("stop")
