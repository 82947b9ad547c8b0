package redact

import (
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestKeywordMatchesEqualsFindAll: for the rules run at their keywords,
// keywordMatches gives exactly FindAllSubmatchIndex's matches, on texts
// made of keywords in mixed case, separators, quotes, escapes, values,
// blanks longer than keywordWindow, and the corpus.
func TestKeywordMatchesEqualsFindAll(t *testing.T) {
	r := testRedactor(t)
	var rules []*rule
	for _, ru := range r.rules {
		if ru.atKeyword != nil {
			rules = append(rules, ru)
		}
	}
	if len(rules) < 2 {
		t.Fatalf("%d keyword rules, want secret-assignment and authorization-header", len(rules))
	}
	pieces := []string{"password", "PassWd", "SECRET", "token", "Api_Key", "apikey", "API-KEY", "authorization", "Authorization",
		"bearer", "Basic", " ", "  ", "\t", "\n", "=", ":", "\"", "'", `\"`, `\`, "hunter2xyz", "Qz7xK2mP9vL4", "ab", ",", ";", "{", "x", "_"}
	rng := rand.New(rand.NewPCG(7, 16))
	var texts []string
	n := 20000
	if testing.Short() {
		n = 4000
	}
	for range n {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	// Blanks across the window's end, a value across it, a long value.
	long := strings.Repeat(" ", keywordWindow+10)
	texts = append(texts, "password"+long+"= hunter2xyz", "token:"+strings.Repeat("a", keywordWindow*2),
		strings.Repeat("x", keywordWindow-8)+"secret= "+strings.Repeat("Q7", 20), "authorization: bearer"+long+"abcdefgh")
	for _, b := range corpusBlocksAll(t) {
		texts = append(texts, strings.Join(b.deltas, ""))
	}
	for _, text := range texts {
		for _, ru := range rules {
			got := ru.keywordMatches([]byte(text))
			want := ru.re.FindAllSubmatchIndex([]byte(text), -1)
			if len(got) == 0 && len(want) == 0 {
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s on %q:\nkeywordMatches %v\nFindAll        %v", ru.id, text, got, want)
			}
		}
	}
}

// corpusBlocksAll is every streamed block of the corpus captures.
func corpusBlocksAll(t *testing.T) []block {
	files, err := filepath.Glob("../testdata/corpus/*/*.stdout.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus captures: %v", err)
	}
	var out []block
	for _, f := range files {
		out = append(out, corpusBlocks(t, f)...)
	}
	return out
}
