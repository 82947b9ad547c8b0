package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLongStringTwice: a value that holds the same long text twice (as
// Claude's tool results do, in message content and in tool_use_result)
// gets each copy redacted as that text alone would be, with its own
// findings at its own pointer, whether the second copy sits under an
// ordinary key, under a key that makes the whole value a secret, or
// differs by its last byte.
func TestLongStringTwice(t *testing.T) {
	r := testRedactor(t)
	var b strings.Builder
	planted := 40
	if raceEnabled {
		planted = 8
	}
	for i, p := range positives() {
		b.WriteString("line of ordinary tool output in /home/dev/src/app/main.go ")
		b.WriteString(p.text())
		b.WriteString("\n")
		if i >= planted {
			break
		}
	}
	for b.Len() < 2*reuseMin {
		b.WriteString("the build went on with ordinary words and numbers 1234 and nothing else of note here\n")
	}
	text := b.String()
	alone := func(key, s string) (string, []Finding) {
		t.Helper()
		in, _ := json.Marshal(map[string]string{key: s})
		out, f, err := r.JSON(in)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]string
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatal(err)
		}
		return m[key], f
	}
	wantText, wantFindings := alone("content", text)
	if wantText == text || len(wantFindings) == 0 {
		t.Fatal("the long text has nothing to redact: the test proves nothing")
	}
	for _, second := range []struct{ key, text string }{
		{"stdout", text},
		{"password", text},
		{"stdout", text[:len(text)-1] + "!"},
	} {
		in, _ := json.Marshal(map[string]any{"message": map[string]string{"content": text}, "tool_use_result": map[string]string{second.key: second.text}})
		out, findings, err := r.JSON(in)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Message map[string]string `json:"message"`
			Result  map[string]string `json:"tool_use_result"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if got.Message["content"] != wantText {
			t.Errorf("second under %q: the first copy is not redacted as the text alone", second.key)
		}
		want2, f2 := alone(second.key, second.text)
		if got.Result[second.key] != want2 {
			t.Errorf("second under %q: the second copy is not redacted as the text alone", second.key)
		}
		var wantAll []Finding
		for _, f := range wantFindings {
			f.Pointer = "/message" + f.Pointer
			wantAll = append(wantAll, f)
		}
		for _, f := range f2 {
			f.Pointer = "/tool_use_result" + f.Pointer
			wantAll = append(wantAll, f)
		}
		if diff := cmp.Diff(wantAll, findings); diff != "" {
			t.Errorf("second under %q: findings (-each alone +together):\n%s", second.key, diff)
		}
	}
}
