package scan

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evcap/evcap/redact"
)

// lineOuts checks every line of input on its own, as the workers do, with
// the one-pass walk or (gjsonOnly) the gjson walk.
func lineOuts(t testing.TB, s *Scanner, input []byte, kind Kind, gjsonOnly bool) ([]lineOut, int) {
	t.Helper()
	m, err := s.matcher(s.opts.Project)
	if err != nil {
		t.Fatal(err)
	}
	ls := &lineScan{s: s, kind: kind, gjsonOnly: gjsonOnly}
	var jobs []lineJob
	for i, l := range bytes.SplitAfter(input, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		jobs = append(jobs, lineJob{n: int64(i + 1), line: bytes.TrimSuffix(l, []byte("\n")), m: m})
	}
	b := &batch{jobs: jobs}
	ls.batch(b)
	fast := 0
	if !gjsonOnly {
		for i := range jobs {
			if ls2 := (&lineScan{s: s, kind: kind, m: m.local(), out: &lineOut{}}); len(bytes.TrimSpace(jobs[i].line)) > 0 {
				t2 := bytes.TrimSuffix(bytes.TrimSpace(jobs[i].line), []byte(","))
				if (t2[0] == '{' || t2[0] == '[') && ls2.fastLine(t2, jobs[i].n) {
					fast++
				}
			}
		}
	}
	return b.outs, fast
}

// sameLines compares the one-pass walk with the gjson walk line by line.
func sameLines(t *testing.T, opts Options, name string, input []byte, kind Kind) int {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := lineOuts(t, s, input, kind, true)
	got, fast := lineOuts(t, s, input, kind, false)
	for i := range want {
		normalize(&want[i])
		normalize(&got[i])
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s: line %d: one-pass walk\n%+v\ngjson walk\n%+v", name, want[i].n, got[i], want[i])
		}
	}
	return fast
}

func normalize(o *lineOut) {
	// The ops' tokens and texts are compared through the ops: they are
	// gathered afresh in op order (a walk that gave up may have left
	// some behind).
	var cands []string
	var pems []pemOp
	ops := append([]op(nil), o.ops...)
	for i := range ops {
		switch x := &ops[i]; x.kind {
		case opIDs:
			start := len(cands)
			cands = append(cands, o.cands[x.i:x.j]...)
			x.i, x.j = int32(start), int32(len(cands))
		case opPEM:
			pems = append(pems, o.pems[x.i])
			x.i = int32(len(pems) - 1)
		}
	}
	o.ops, o.cands, o.pems = ops, cands, pems
	if len(o.ops) == 0 {
		o.ops = nil
		o.opSeq = 0
	}
	if len(o.learned) == 0 {
		o.learned = nil
	}
	if len(o.ends) == 0 {
		o.ends = nil
	}
}

// TestFastLineIsTheWalk: the one-pass walk gives what the gjson walk
// gives, line by line (the same ops in the same order, the same record
// fields), on the corpus captures, the repository's captures, and lines
// built to hit what the two could read differently: escapes of every
// kind, invalid UTF-8, lone surrogates, duplicate and escaped record
// keys, JSON held in strings (valid, broken, nested), keys that are
// secrets, deep nesting.
func TestFastLineIsTheWalk(t *testing.T) {
	fast := 0
	for _, p := range []string{"../cmd/evcap/sample/claude-tools.jsonl", "../export/testdata/claude-subagent.capture.jsonl", "../view/testdata/claude-sdk-permission.jsonl"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fast += sameLines(t, Options{Home: "/home/u"}, filepath.Base(p), b, KindCapture)
		fast += sameLines(t, Options{}, filepath.Base(p), b, KindFile)
	}
	r := rand.New(rand.NewPCG(1, 2))
	n, want := 80, 2000
	if raceOn {
		// The race detector makes the gjson walk of the deep lines slow.
		n, want = 12, 300
	}
	for i := range n {
		var lines []string
		for j := range 20 {
			lines = append(lines, trickyLine(r, j+1))
		}
		in := []byte(strings.Join(lines, "\n") + "\n")
		for _, k := range []Kind{KindCapture, KindFixture, KindFile} {
			fast += sameLines(t, Options{Home: "/home/u", Config: testConfig(i)}, fmt.Sprint("tricky-", i), in, k)
		}
	}
	if fast < want {
		t.Fatalf("only %d lines took the one-pass walk", fast)
	}
	t.Logf("%d lines compared through the one-pass walk", fast)
}

func testConfig(i int) (c redact.Config) {
	if i%3 == 0 {
		c.AllowRegex = []string{`^msg_01ALLOW`}
		c.Allow = []string{"toolu_allowed1"}
	}
	return c
}

// jsonQuote quotes s as a JSON string, escaping some bytes that need no
// escape (as \uXXXX or the short forms) and keeping bytes of 0x80 and
// above as they are, valid UTF-8 or not.
func jsonQuote(r *rand.Rand, s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 1 && i+4 < len(s):
			// A raw \u escape (surrogates) written as it is.
			b.WriteString(`\u` + s[i+1:i+5])
			i += 4
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		case c < 0x80 && r.IntN(12) == 0:
			fmt.Fprintf(&b, `\u%04X`, c)
		case c == '/' && r.IntN(2) == 0:
			b.WriteString(`\/`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

var trickyPieces = []string{
	"", "plain words ", "msg_01ABCdefGHij", "toolu_0123abcdXYZ", "item_12", "ses_abcd1234", "req_x", "4f1c2a9e-1b2c-4d5e-9f00-aabbccddeeff",
	"/home/ann/proj/x.go", " /Users/bob/y ", "/home/u/secret", "C:\\Users\\eve\\z", "sk-ant-api03-" + strings.Repeat("aB3", 10),
	"ghp_" + strings.Repeat("Ab1", 12), "AKIAABCDEFGHIJKLMNOP", "password=Xy7#kLm9$pQ2w", "--api-token=zz9Q8w7E6r5T4y3U",
	"-----BEGIN RSA PRIVATE KEY-----\n", "MIIEowIBAAKCAQEAx7y8z9\n", "[REDACTED:private-key-block]\n", "-----END RSA PRIVATE KEY-----",
	"\xff\xfe", "é", "\U0001F600", "\xed\xa0\xbd", "\x01d83d\x01de00", "\x01d83d", "\x01de00x", "\x01d83d\x01d83d\x01de00", "\x01DBFF\x01DFFF", "\\u0073k-ant-", "%73k-ant-api03-xxxxxxxxxxxxxxxxxxxxxxxx", "c2stYW50LWFwaTAzLWFhYWFhYWFhYWFhYWFhYWFhYWFh",
	"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc", "\t", "\\n", "[REDACTED:openai-key]aB3dE5fG7hJ9kL",
}

var trickyKeys = []string{"text", "id", "uuid", "session_id", "sessionId", "sessionID", "messageId", "tool_use_id", "password", "apiKey", "client_secret",
	"content", "payload", "stage", "sequence", "a/b", "m~n", "sk-ant-api03-" + strings.Repeat("Zz9", 9), "cwd", "delta", "type", "é"}

func trickyText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(5) {
		b.WriteString(trickyPieces[r.IntN(len(trickyPieces))])
	}
	return b.String()
}

// trickyValue is a random JSON value of at most depth levels.
func trickyValue(r *rand.Rand, depth int) string {
	k := r.IntN(10)
	if depth <= 0 {
		k = r.IntN(4)
	}
	switch k {
	case 0, 1:
		return jsonQuote(r, trickyText(r))
	case 2:
		return []string{"1", "-2.5e3", "true", "false", "null", "0"}[r.IntN(6)]
	case 3:
		// JSON held in a string: valid, an SSE line, a marker, broken.
		inner := trickyValue(r, depth-1)
		switch r.IntN(5) {
		case 0:
			inner = "data: " + inner
		case 1:
			inner = "[CONTENT_DELTA] " + inner
		case 2:
			inner = `{"x": ` + inner
		case 3:
			inner = " " + `{"k":` + inner + `}`
		}
		return jsonQuote(r, inner)
	case 4, 5, 6:
		var parts []string
		for range r.IntN(4) {
			parts = append(parts, jsonQuote(r, trickyKeys[r.IntN(len(trickyKeys))])+":"+trickyValue(r, depth-1))
		}
		return "{" + strings.Join(parts, ",") + "}"
	default:
		var parts []string
		for range r.IntN(4) {
			parts = append(parts, trickyValue(r, depth-1))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
}

// trickyLine is one line of a capture, fixture or other file, built to
// hit where the one-pass walk and the gjson walk could differ.
func trickyLine(r *rand.Rand, seq int) string {
	switch r.IntN(14) {
	case 0:
		return trickyText(r)
	case 1:
		return "[" + trickyValue(r, 3) + "]"
	case 2:
		// Nesting around the depth limits.
		d := maxWalkDepth - 10 + r.IntN(20)
		return `{"payload":` + strings.Repeat("[", d) + jsonQuote(r, trickyText(r)) + strings.Repeat("]", d) + `}`
	case 3:
		return `{"broken": ` + trickyValue(r, 2)
	case 4:
		return jsonQuote(r, "name") + ": " + jsonQuote(r, trickyText(r)) + ","
	}
	stages := []string{`"meta"`, `"native_in"`, `"normalized_out"`, `"legacy_out"`, `"stderr"`, `5`, `null`, `"nat\u0069ve_in"`}
	fields := []string{
		`"schemaVersion":1`,
		fmt.Sprintf(`"sequence":%d`, seq),
		`"stage":` + stages[r.IntN(len(stages))],
		`"sessionId":` + []string{jsonQuote(r, "ses_abcd1234"), `""`, `7`, jsonQuote(r, "4f1c2a9e-1b2c-4d5e-9f00-aabbccddeeff")}[r.IntN(4)],
	}
	var payload string
	switch r.IntN(6) {
	case 0:
		payload = `{"type":"stream_event","parent_tool_use_id":null,"event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":` + jsonQuote(r, trickyText(r)) + `}}}`
	case 1:
		payload = `{"type":"stream_event","event":{"type":"content_block_stop","index":0}}`
	case 2:
		payload = jsonQuote(r, "[CONTENT_DELTA] "+jsonQuote(r, trickyText(r)))
	case 3:
		payload = `{"kind":"text","phase":"delta","messageId":"m1","partId":"p1","text":` + jsonQuote(r, trickyText(r)) + `}`
	default:
		payload = trickyValue(r, 5)
	}
	fields = append(fields, `"payload":`+payload)
	switch r.IntN(6) {
	case 0:
		fields = append(fields, `"stage":"native_in"`, `"payload":{"id":"msg_01SECONDpayload"}`, `"sequence":99`)
	case 1:
		fields = append(fields, `"st\u0061ge":"meta"`)
	case 2:
		fields = append(fields, `"sequence":"12"`)
	}
	r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	return "{" + strings.Join(fields, ",") + "}"
}

// TestIDCandsAreHolds: a text holds a learned id exactly when one of its
// candidate tokens is one, for ids of every shape volatileID accepts.
func TestIDCandsAreHolds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	ids := []string{"msg_01ABCdefGHij", "toolu_0123abcdXYZ", "item_12", "ses_abcd1234", "4f1c2a9e-1b2c-4d5e-9f00-aabbccddeeff", "call_abcd", "thread0001"}
	var k knownIDs
	for _, id := range ids[:4] {
		k.learn(id)
	}
	pieces := append([]string{" ", "x", "_", "-", "1", "msg_", "item_", "é", "/", "\xff"}, ids...)
	held := 0
	for range 20000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		want := k.holds(text)
		if got := k.holdsAny(idCands(nil, text)); got != want {
			t.Fatalf("%q: holdsAny(idCands) = %v, holds = %v", text, got, want)
		}
		if want {
			held++
		}
	}
	if held < 1000 {
		t.Fatalf("only %d texts held an id", held)
	}
}
