package redact

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// cutPieces are what the random texts of TestCutMatchesWhole are made
// of: words and whitespace, home directories in every form homeSpans
// knows, the needles of the redactors below, secrets, a private key block
// (a span that can reach across either cut), base64, and runs without
// whitespace (so that homeSpans finds no place to resume).
var cutPieces = []string{
	"the ", "value ", "\n", "\t", " ", "  ", "ok", "-rw-r--r--", "a-", "x:", "file://",
	"/home/alice/src/app", "/home/bob", "/Users/carl/x", "/Users/Shared/y", "/root", "/root/.cache", "/-root",
	`C:\Users\dan\a`, "c:/users/erin/", `D:\\Users\\fay`, "-home-gus-src", "-Users-hal", "C--Users-ivy-x",
	"/tmp/evcap-1/out", "/srv/proj/main.go", "-srv-proj-x", "/home/alice", "/srv/projx",
	"sk-ant-api03-" + strings.Repeat("a1B2", 24) + "AA", "AKIAQWERTYUIOPASDFGH", "ghp_" + strings.Repeat("x9Y", 12),
	"password=Hunter2Hunter2", "token: abcDEF123456789xyz", "Authorization: Bearer abcdefghijklmnop0123",
	"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n", "-----END RSA PRIVATE KEY-----\n",
	"aGVsbG8gd29ybGQgaGVsbG8gd29ybGQ=", "%2Fhome%2Fjo%2F", `\u0073k-ant-`, "[REDACTED:x]", "<HOME>",
	strings.Repeat("z", 40), strings.Repeat("/home/kim", 5), strings.Repeat("q-", 30),
}

// TestCutMatchesWhole checks that a string about to be truncated gets
// the same spans from findSpansLong, which leaves out the path spans of
// the part truncate drops, as from the whole search: random texts of
// pieces that put paths, secrets and key blocks at and across the cut
// points, with a project that is also a home directory (spans that tie).
func TestCutMatchesWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 19))
	var redactors []*Redactor
	for _, opts := range []Options{
		{Home: "/home/alice", Project: "/srv/proj", Temp: []string{"/tmp"}, MaxString: 300},
		{Home: "/root", Project: "/home/bob", Temp: []string{"/tmp/evcap-1"}, MaxString: 256},
		{Home: "/Users/carl", Project: "/srv/proj", MaxString: 160},
	} {
		r, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		redactors = append(redactors, r)
	}
	cutOK, cutFell, withMiddle := 0, 0, 0
	n := 400
	if raceEnabled {
		n = 16 // the rules' regexps run about ten times slower
	}
	for i := range n {
		r := redactors[i%len(redactors)]
		var b strings.Builder
		size := r.maxString + rng.IntN(2*r.maxString)
		for b.Len() < size {
			b.WriteString(cutPieces[rng.IntN(len(cutPieces))])
		}
		text := []byte(b.String())
		found := r.keywords.scan(text)
		whole := r.truncate(text, r.findSpansFound(text, &found, 0, nil))
		// With the keyword hits finding the rules' literals, as JSON does.
		var scratch []kwHit
		lits := litFinder{r: r, hits: r.keywords.scanHits(text, nil, &scratch)}
		if got := r.keywords.within(text, lits.hits, 0); got != found {
			t.Fatalf("within(scanHits) %v, scan %v", got, found)
		}
		got := r.truncate(text, r.findSpansLong(text, &found, nil, true, &lits))
		if !reflect.DeepEqual(got, whole) {
			t.Fatalf("text %q (max %d):\ncut   %v\nwhole %v", text, r.maxString, got, whole)
		}
		if _, ok := r.findSpansCut(text, &found, 0, nil, r.maxString/2, len(text)-r.maxString/4, nil); ok {
			cutOK++
		} else {
			cutFell++
		}
		if all := r.findSpansFound(text, &found, 0, nil); len(all) > 0 {
			for _, s := range all {
				if s.start >= r.maxString/2 && s.end <= len(text)-r.maxString/4 && s.rule == RulePathHome {
					withMiddle++
					break
				}
			}
		}
		// TextValue takes the same way.
		wantOut, wantF := r.applyText(text, whole)
		gotOut, gotF := r.TextValue(text)
		if string(gotOut) != string(wantOut) || !reflect.DeepEqual(gotF, wantF) {
			t.Fatalf("TextValue of %q: got %q %v, want %q %v", text, gotOut, gotF, wantOut, wantF)
		}
	}
	t.Logf("of %d texts: %d cut, %d fell back, %d with a home path in the middle", n, cutOK, cutFell, withMiddle)
	// The comparison must have seen both ways, and middles with paths.
	if cutOK < n/4 || cutFell < n/100 || withMiddle < n/4 {
		t.Errorf("of %d texts: %d cut, %d fell back, %d with a home path in the middle: the comparison says little", n, cutOK, cutFell, withMiddle)
	}
}

// TestCutJSON checks the same through JSON: a long string value with
// paths on every line gives the output and ledger of the whole search.
func TestCutJSON(t *testing.T) {
	r, err := New(Options{Home: "/root", Project: "/srv/proj", Temp: []string{"/tmp"}, MaxString: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`{"content":"`)
	for i := 0; b.Len() < 64<<10; i++ {
		b.WriteString(`-rw-r--r--\t1 dev dev\t/home/dev/src/app/f.go\t/tmp/x\n/srv/proj/a \"q\" `)
		if i == 40 {
			b.WriteString(`sk-ant-api03-` + strings.Repeat("a1B2", 24) + `AA `)
		}
	}
	b.WriteString(`/home/tail/x"}`)
	in := []byte(b.String())
	out, findings, err := r.JSON(in)
	if err != nil {
		t.Fatal(err)
	}
	// The reference: the same walk with the cut turned off.
	text := []byte(strings.NewReplacer(`\t`, "\t", `\n`, "\n", `\"`, `"`).Replace(b.String()[len(`{"content":"`) : b.Len()-2]))
	found := r.keywords.scan(text)
	whole := r.truncate(text, r.findSpansFound(text, &found, 0, nil))
	wantOut, _ := r.applyText(text, whole)
	var got struct{ Content string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.Content != string(wantOut) {
		t.Fatalf("decoded output differs from the whole search's:\n%q\n%q", got.Content, wantOut)
	}
	if !strings.HasSuffix(got.Content, "<HOME>/x") || !strings.Contains(got.Content, "[TRUNCATED:original") {
		t.Fatalf("output lacks the tail path or the marker: %q", got.Content[len(got.Content)-100:])
	}
	var rules []string
	for _, f := range findings {
		rules = append(rules, f.Rule)
	}
	var wantRules []string
	seen := map[string]bool{}
	for _, s := range whole {
		if !seen[s.rule] {
			seen[s.rule] = true
			wantRules = append(wantRules, s.rule)
		}
	}
	if !reflect.DeepEqual(rules, wantRules) {
		t.Fatalf("ledger rules %v, want %v", rules, wantRules)
	}
}
