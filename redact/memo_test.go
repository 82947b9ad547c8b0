package redact

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// walkWith redacts line with j, as Redactor.JSON does.
func walkWith(r *Redactor, j *jsonRedaction, line []byte) (string, []Finding, error) {
	out, _, findings, err := j.run(r, &j.w, line, true, nil)
	return string(out), slices.Clone(findings), err
}

// memoInputs are the JSON lines of every corpus capture and the fake
// secrets in every JSON embedding, the secrets twice over so that their
// strings are seen again.
func memoInputs(t *testing.T) [][]byte {
	t.Helper()
	var in [][]byte
	files, _ := filepath.Glob("../testdata/corpus*/*/*.jsonl")
	if len(files) < 40 {
		t.Fatalf("found %d corpus files", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			if l := sc.Bytes(); len(l) > 0 && l[0] == '{' {
				in = append(in, bytes.Clone(l))
			}
		}
	}
	for range 2 {
		for _, p := range positives() {
			for _, e := range embeddings {
				if l := e.wrap(p.text()); l[0] == '{' {
					in = append(in, []byte(l))
				}
			}
		}
	}
	return in
}

// TestMemoChangesNothing: a walk that remembers the short strings it
// found clean (cleanMemo) gives every line the output and findings a
// walk that remembers nothing gives it, through the corpus and the fake
// secrets three times over.
func TestMemoChangesNothing(t *testing.T) {
	r := testRedactor(t)
	warm := new(jsonRedaction)
	in := memoInputs(t)
	for pass := range 3 {
		for i, line := range in {
			got, gotF, gotErr := walkWith(r, warm, line)
			want, wantF, wantErr := walkWith(r, new(jsonRedaction), line)
			if got != want || (gotErr == nil) != (wantErr == nil) || !slices.Equal(gotF, wantF) {
				t.Fatalf("pass %d, line %d %.200s:\nremembering: %.300s %v\nfresh:       %.300s %v", pass, i, line, got, gotF, want, wantF)
			}
		}
	}
	if len(warm.memo.values) == 0 || len(warm.memo.keys) == 0 {
		t.Fatalf("the walk remembered %d values and %d keys", len(warm.memo.values), len(warm.memo.keys))
	}
	long := 0
	for _, e := range warm.memo.long {
		if e.hash != 0 {
			long++
		}
	}
	if long == 0 {
		t.Fatal("the walk remembered no long text")
	}
}

// TestMemoLongTexts: a long text remembered with its spans (a path and a
// secret in it) is redacted the same in its copies, in the same line and
// the next ones, and still whole as the value of a sensitive key.
func TestMemoLongTexts(t *testing.T) {
	r := testRedactor(t)
	j := new(jsonRedaction)
	secret := positives()[0].text()
	text := strings.Repeat("built /home/alice/src/app/main.go ok\\n", 40) + "token " + secret + " end"
	line := []byte(`{"content":"` + text + `","stdout":"` + text + `"}`)
	if n := len(text); n < longMemoMin || n > longMemoMax {
		t.Fatalf("text of %d bytes is not a long memo text", n)
	}
	want, wantF, err := walkWith(r, new(jsonRedaction), line)
	if err != nil || strings.Contains(want, "/home/alice") || strings.Contains(want, secret) {
		t.Fatalf("fresh walk: %.300s %v", want, err)
	}
	for i := range 3 {
		got, gotF, err := walkWith(r, j, line)
		if err != nil || got != want || !slices.Equal(gotF, wantF) {
			t.Fatalf("walk %d:\nremembering: %.300s %v\nfresh:       %.300s %v", i, got, gotF, want, wantF)
		}
	}
	hits := 0
	for _, e := range j.memo.long {
		if e.hash != 0 && len(e.spans) > 0 {
			hits++
		}
	}
	if hits != 1 {
		t.Fatalf("%d long texts with spans remembered, want 1", hits)
	}
	out, found, err := walkWith(r, j, []byte(`{"password":"`+text+`"}`))
	if err != nil || len(found) != 1 || strings.Contains(out, "built") {
		t.Fatalf("a remembered long text under a sensitive key: %.300s %v %v", out, found, err)
	}
}

// TestMemoKeepsKeyContext: a text remembered clean as one member's value
// is still a secret as the value of a sensitive key, and a memo of one
// Redactor's texts is not used with another's rules.
func TestMemoKeepsKeyContext(t *testing.T) {
	r := testRedactor(t)
	j := new(jsonRedaction)
	plain := []byte(`{"note":"Kx9vQ2mWz7LpR4tY"}`)
	for range 3 {
		if out, _, err := walkWith(r, j, plain); err != nil || out != string(plain) {
			t.Fatalf("plain line changed: %s %v", out, err)
		}
	}
	if _, ok := j.memo.values["Kx9vQ2mWz7LpR4tY"]; !ok {
		t.Fatal("the clean text was not remembered")
	}
	out, found, err := walkWith(r, j, []byte(`{"password":"Kx9vQ2mWz7LpR4tY"}`))
	if err != nil || len(found) != 1 || bytes.Contains([]byte(out), []byte("Kx9vQ2mWz7LpR4tY")) {
		t.Fatalf("a remembered text under a sensitive key: %s %v %v", out, found, err)
	}
	// A key with something to redact in it is never remembered clean.
	for i := range 3 {
		out, found, err := walkWith(r, j, []byte(`{"/home/alice/notes.txt":1}`))
		if err != nil || len(found) != 1 || bytes.Contains([]byte(out), []byte("/home/alice")) {
			t.Fatalf("walk %d of a key holding a path: %s %v %v", i, out, found, err)
		}
	}
	// Keys remembered at the top level keep their meaning inside response
	// headers, where a key's folded name decides.
	for _, line := range []string{
		`{"x-ratelimit-remaining":"abcdefgh12345678","content-type":"text/plain","x-custom-thing":"abcdefgh12345678"}`,
		`{"x-ratelimit-remaining":"abcdefgh12345678","content-type":"text/plain","x-custom-thing":"abcdefgh12345678"}`,
		`{"responseHeaders":{"x-ratelimit-remaining":"abcdefgh12345678","content-type":"text/plain","x-custom-thing":"abcdefgh12345678"}}`,
	} {
		got, gotF, _ := walkWith(r, j, []byte(line))
		want, wantF, _ := walkWith(r, new(jsonRedaction), []byte(line))
		if got != want || !slices.Equal(gotF, wantF) {
			t.Fatalf("%s:\nremembering: %s %v\nfresh:       %s %v", line, got, gotF, want, wantF)
		}
	}
	// Another Redactor, with a custom rule for the text: the memo of the
	// first one's rules is not used.
	strict, err := New(Options{Config: Config{Rules: []CustomRule{{ID: "custom-kx", Regex: `Kx9v[A-Za-z0-9]{12}`, Keyword: "Kx9v"}}}})
	if err != nil {
		t.Fatal(err)
	}
	out, found, err = walkWith(strict, j, plain)
	if err != nil || len(found) != 1 {
		t.Fatalf("another Redactor's rules on a text the memo holds: %s %v %v", out, found, err)
	}
}
