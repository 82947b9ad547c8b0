package envelope

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/evcap/evcap/internal/lines"
	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/tidwall/gjson"
)

// These tests hold the one-pass reader (scan.go behind Reader.Next,
// NextShared, ParallelReader, ParseRecord and Validate) to the reader it replaced, kept
// verbatim in oldreader_test.go: over every capture they can find or
// build, and over lines broken in every way the list below can think of,
// both must return the same records and the same errors.

// For scan_gen_test.go, which is in package envelope_test because
// bench/gen imports this package.
var (
	SameAsOld   = sameAsOld
	CaptureOf   = captureOf
	RaceEnabled = raceEnabled
)

// step is one result of Reader.Next, comparable across readers.
type step struct {
	Rec                 *Record
	Err                 string
	File                string
	Line, Sequence      int64
	Invalid, Torn, Vers bool
	LineNo              int64
}

// diffUpgrades lifts a made-up version 0 (as TestMigrationFromSyntheticV0
// has it) so that the upgrade path is compared too.
var diffUpgrades = map[int]Upgrade{0: func(line []byte) ([]byte, error) {
	s := strings.Replace(string(line), `"schemaVersion":0`, `"schemaVersion":1`, 1)
	if !strings.Contains(s, `"schemaVersion":1`) {
		return nil, errors.New("not a plain version 0 line")
	}
	return []byte(s), nil
}}

func toStep(rec *Record, err error, line int64) step {
	s := step{Rec: rec, LineNo: line}
	if err != nil {
		s.Err = err.Error()
		var le *LineError
		if errors.As(err, &le) {
			s.File, s.Line, s.Sequence = le.File, le.Line, le.Sequence
		}
		s.Invalid, s.Torn, s.Vers = errors.Is(err, ErrInvalidLine), errors.Is(err, ErrTornLine), errors.Is(err, ErrUnsupportedVersion)
	}
	return s
}

func oldSteps(data []byte, opts ReaderOptions, wrap func(io.Reader) io.Reader) []step {
	r := newOldReader(wrap(bytes.NewReader(data)), "cap.jsonl", opts)
	var out []step
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return out
		}
		out = append(out, toStep(rec, err, r.lr.Line()))
	}
}

func newSteps(data []byte, opts ReaderOptions, shared bool, wrap func(io.Reader) io.Reader) []step {
	r := NewReader(wrap(bytes.NewReader(data)), "cap.jsonl", opts)
	var out []step
	for {
		var rec *Record
		var err error
		if shared {
			rec, err = r.NextShared()
			if rec != nil {
				rec = copyExact(rec)
			}
		} else {
			rec, err = r.Next()
		}
		if err == io.EOF {
			return out
		}
		out = append(out, toStep(rec, err, r.Line()))
	}
}

// diff is cmp.Diff, which is slow on long payloads, behind the quick
// reflect.DeepEqual (which tells nil and empty slices apart as well).
func diff(want, got any) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got)
}

// copyExact is a deep copy that keeps nil and empty slices apart (Clone
// does not), so that NextShared's records compare exactly.
func copyExact(r *Record) *Record {
	c := *r
	dup := func(b []byte) []byte {
		if b == nil {
			return nil
		}
		return append([]byte{}, b...)
	}
	c.Payload = dup(r.Payload)
	if r.Redactions != nil {
		c.Redactions = append([]Redaction{}, r.Redactions...)
	}
	if r.Cause != nil {
		c.Cause = append([]int64{}, r.Cause...)
	}
	if r.Extra != nil {
		c.Extra = make([]Field, len(r.Extra))
		for i, f := range r.Extra {
			c.Extra[i] = Field{Key: f.Key, Value: dup(f.Value), RawKey: dup(f.RawKey)}
		}
	}
	return &c
}

func plain(r io.Reader) io.Reader { return r }

// sameAsOldVia compares the readers (Next, NextShared) on data read
// through wrap: odd chunkings and read errors.
func sameAsOldVia(t testing.TB, name string, data []byte, wrap func(io.Reader) io.Reader) {
	t.Helper()
	want := oldSteps(data, ReaderOptions{}, wrap)
	for _, shared := range []bool{false, true} {
		if d := diff(want, newSteps(data, ReaderOptions{}, shared, wrap)); d != "" {
			t.Fatalf("%s (shared %v): differs from the old reader (-old +new):\n%s", name, shared, d)
		}
	}
	sameAsOldParallel(t, name, data, ReaderOptions{}, wrap)
	wv, werr := oldValidate(context.Background(), wrap(bytes.NewReader(data)), ValidateOptions{})
	gv, gerr := Validate(context.Background(), wrap(bytes.NewReader(data)), ValidateOptions{})
	if fmt.Sprint(werr) != fmt.Sprint(gerr) {
		t.Fatalf("%s: Validate error %v, old %v", name, gerr, werr)
	}
	if d := diff(wv, gv); d != "" {
		t.Fatalf("%s: Validate differs (-old +new):\n%s", name, d)
	}
}

// chunky returns reads of sizes drawn from a seeded sequence, 0 included.
type chunky struct {
	r io.Reader
	n uint64
}

func (c *chunky) Read(p []byte) (int, error) {
	c.n = c.n*6364136223846793005 + 1442695040888963407
	k := int(c.n>>33) % 70000
	if k == 0 {
		return 0, nil
	}
	return c.r.Read(p[:min(k, len(p))])
}

// failAfter fails every read after the first n bytes, once, then reads on.
type failAfter struct {
	r      io.Reader
	n      int
	failed bool
}

var errInjected = errors.New("injected read error")

func (f *failAfter) Read(p []byte) (int, error) {
	if f.n <= 0 && !f.failed {
		f.failed = true
		return 0, errInjected
	}
	if f.n > 0 {
		p = p[:min(len(p), f.n)]
	}
	m, err := f.r.Read(p)
	f.n -= m
	return m, err
}

// TestLineSourceMatchesLinesReader reads captures through odd chunkings,
// lines around and far over the buffer's size, and read errors: the
// reader's own line splitting must give what internal/lines gave.
func TestLineSourceMatchesLinesReader(t *testing.T) {
	good := func(seq int, text string) string {
		return fmt.Sprintf(`{"schemaVersion":1,"captureId":"C","sequence":%d,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"native_in","eventType":"e","payload":{"t":"%s"},"redactions":[]}`, seq, text)
	}
	sizes := []int{10, lineBuf - 200, lineBuf - 150, lineBuf, lineBuf + 1, 3 * lineBuf, 20, lineBufKeep + 5, 7}
	if raceEnabled {
		sizes = slices.DeleteFunc(sizes, func(n int) bool { return n > lineBufKeep }) // the shrink path: without -race only
	}
	var long strings.Builder
	for i, n := range sizes {
		long.WriteString(good(i+1, strings.Repeat("x", n)) + "\n")
	}
	inputs := map[string][]byte{"long lines": []byte(long.String()), "long torn": []byte(strings.TrimSuffix(long.String(), "\n"))}
	for k, v := range storedCaptures(t) {
		inputs[k] = v
	}
	var odd strings.Builder
	for _, l := range oddLines() {
		odd.WriteString(l + "\n")
	}
	inputs["odd lines"] = []byte(odd.String())
	inputs["odd lines torn"] = []byte(odd.String() + "{")
	inputs["crlf"] = []byte(good(1, "a") + "\r\n\r\n" + good(2, "b") + "\r\n")
	inputs["empty"] = nil
	inputs["newlines"] = []byte("\n\n\n")
	wraps := map[string]func(io.Reader) io.Reader{
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"data+err": iotest.DataErrReader,
		"chunky":   func(r io.Reader) io.Reader { return &chunky{r: r, n: 7} },
	}
	for name, data := range inputs {
		for wn, w := range wraps {
			if wn == "one byte" && len(data) > 64<<10 {
				continue // the chunky and half readers cover these
			}
			sameAsOldVia(t, name+" / "+wn, data, w)
		}
		for _, at := range []int{1, len(data) / 3, len(data) - 1} {
			sameAsOldVia(t, fmt.Sprintf("%s / error after %d bytes", name, at), data, func(r io.Reader) io.Reader { return &failAfter{r: r, n: at} })
		}
	}
}

// sameAsOld fails t when the new reader, in either mode, or ParseRecord
// and Validate, differ from the old ones on data.
func sameAsOld(t testing.TB, name string, data []byte) {
	t.Helper()
	for _, opts := range []ReaderOptions{{}, {Upgrades: diffUpgrades}} {
		want := oldSteps(data, opts, plain)
		if d := diff(want, newSteps(data, opts, false, plain)); d != "" {
			t.Fatalf("%s: Next differs from the old reader (-old +new):\n%s", name, d)
		}
		if d := diff(want, newSteps(data, opts, true, plain)); d != "" {
			t.Fatalf("%s: NextShared differs from the old reader (-old +new):\n%s", name, d)
		}
		sameAsOldParallel(t, name, data, opts, plain)
	}
	lr := lines.NewReader(bytes.NewReader(data))
	for {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if gjson.ValidBytes(l) {
			// ParseRecord's callers validate first; so does the old reader.
			wr, werr := parseRecordSlow(l)
			gr, gerr := ParseRecord(l)
			if d := diff(toStep(wr, werr, 0), toStep(gr, gerr, 0)); d != "" {
				t.Fatalf("%s line %d: ParseRecord differs (-old +new):\n%s", name, lr.Line(), d)
			}
		}
		if err != nil {
			break
		}
	}
	schema := func(line []byte) error {
		if bytes.Contains(line, []byte(`"schemaFail"`)) {
			return errors.New("schemaFail present")
		}
		return nil
	}
	for _, o := range []ValidateOptions{{}, {Schema: schema}} {
		wv, werr := oldValidate(context.Background(), bytes.NewReader(data), o)
		gv, gerr := Validate(context.Background(), bytes.NewReader(data), o)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Fatalf("%s: Validate error %v, old %v", name, gerr, werr)
		}
		if d := diff(wv, gv); d != "" {
			t.Fatalf("%s: Validate differs (-old +new):\n%s", name, d)
		}
	}
}

// captureOf writes lines as the records a recorder makes of them:
// native_in (stdout), stderr, native_out, and now and then a derived record
// with a cause, a redaction ledger and the optional fields.
func captureOf(t testing.TB, stdout, stderr [][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{CaptureID: "01KQ0000000000000000000000", Now: fixedClock, FlushInterval: -1})
	write := func(r *Record) {
		if _, err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	write(&Record{Provider: "claude", Stage: StageMeta, EventType: EventCaptureStart, Payload: []byte(`{"cliName":"claude","cliVersion":"2.0.0"}`), Model: "m", Agent: "a", PermissionMode: "default", CwdHash: "c", ProjectHash: "p", Source: "live", Notes: "n"})
	for i, l := range stdout {
		p, kind := EncodeNativeLine(l)
		et := gjson.GetBytes(l, "type").String()
		switch {
		case kind != NativeJSON:
			et = EventNonJSON
		case et == "":
			et = "line"
		}
		seq, err := w.Write(&Record{Provider: "claude", SessionID: "s", TurnID: fmt.Sprint(i / 10), Stage: StageNativeIn, EventType: et, Payload: p})
		if err != nil {
			t.Fatal(err)
		}
		if i%7 == 0 {
			write(&Record{Provider: "claude", SessionID: "s", Stage: StageNormalizedOut, EventType: "text", Payload: []byte(`{"kind":"text","phase":"delta","text":"x"}`), Cause: []int64{seq}})
		}
		if i%11 == 0 {
			write(&Record{Provider: "claude", SessionID: "s", Stage: StageNativeOut, EventType: EventControlResponse, Payload: p,
				Redactions: []Redaction{{Rule: "r", Pointer: "/a", Count: 1, OriginalLength: 9}}})
		}
	}
	for _, l := range stderr {
		p, _ := EncodeTextLine(l)
		write(&Record{Provider: "claude", Stage: StageNativeIn, EventType: EventStderr, Payload: p})
	}
	write(&Record{Provider: "claude", Stage: StageMeta, EventType: EventCaptureEnd, Payload: []byte(`{"exitCode":0}`)})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func fileLines(t testing.TB, name string) [][]byte {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	lr := lines.NewReader(f)
	for {
		l, err := lr.Next()
		if l != nil {
			out = append(out, bytes.Clone(l))
		}
		if err != nil {
			return out
		}
	}
}

// corpusCaptures builds a capture from each run of the real corpus (its
// stdout lines and stderr lines); the corpus holds CLI output, not
// captures.
func corpusCaptures(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	var files []string
	for _, pat := range []string{"../testdata/corpus/*/*.stdout.jsonl", "../testdata/corpus-extra/*/*.stdout.jsonl", "../testdata/corpus-extra/*/*/*.stdout.jsonl"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d corpus runs found", len(files))
	}
	for _, f := range files {
		var stderr [][]byte
		if _, err := os.Stat(strings.TrimSuffix(f, ".stdout.jsonl") + ".stderr.txt"); err == nil {
			stderr = fileLines(t, strings.TrimSuffix(f, ".stdout.jsonl")+".stderr.txt")
		}
		out[f] = captureOf(t, fileLines(t, f), stderr)
	}
	return out
}

// storedCaptures are the captures kept in the repository: samples, test
// data and the capture files of the CLI's test scripts (bad ones too).
func storedCaptures(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, name := range []string{"../export/testdata/claude-subagent.capture.jsonl", "../view/testdata/claude-sdk-permission.jsonl", "../cmd/evcap/sample/claude-tools.jsonl"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = b
	}
	scripts, _ := filepath.Glob("../cmd/evcap/testdata/script/*.txtar")
	for _, s := range scripts {
		a, err := txtar.ParseFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if bytes.Contains(f.Data, []byte(`"schemaVersion"`)) {
				out[s+":"+f.Name] = f.Data
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d stored captures found", len(out))
	}
	return out
}

func TestScanMatchesOldOnCaptures(t *testing.T) {
	all := corpusCaptures(t)
	for k, v := range storedCaptures(t) {
		all[k] = v
	}
	records := 0
	for name, data := range all {
		sameAsOld(t, name, data)
		records += bytes.Count(data, []byte("\n"))
	}
	t.Logf("%d captures, %d lines, each read by both readers", len(all), records)
}

// oddLines are record lines that are valid, nearly valid or broken in the
// ways the scanner must hand to the general path, or must get right itself.
func oddLines() []string {
	base := `{"schemaVersion":1,"captureId":"C","sequence":3,"timestamp":"t","provider":"p","sessionId":"s","turnId":"","stage":"native_in","eventType":"e","payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]},"redactions":[]}`
	rep := func(old, new string) string { return strings.Replace(base, old, new, 1) }
	out := []string{
		base,
		" \t" + base + " \r",
		base + "\r",
		base + "x",
		base + "}",
		rep(`{"schemaVersion"`, `{ "schemaVersion" `),
		rep(`:1,`, ` : 1 , `),
		strings.ReplaceAll(base, `,`, ` , `),
		strings.ReplaceAll(base, `:`, "\t:\n"),
		rep(`"schemaVersion":1`, `"schemaVersion":0`),
		rep(`"schemaVersion":1`, `"schemaVersion":2`),
		rep(`"schemaVersion":1`, `"schemaVersion":1.0`),
		rep(`"schemaVersion":1`, `"schemaVersion":1e0`),
		rep(`"schemaVersion":1`, `"schemaVersion":"1"`),
		rep(`"schemaVersion":1`, `"schemaVersion":-1`),
		rep(`"schemaVersion":1`, `"schemaVersion":01`),
		rep(`"schemaVersion":1,`, ``),
		rep(`"schemaVersion":1`, `"schemaVersion":1,"schemaVersion":1`),
		rep(`"schemaVersion":1`, `"schemaVersion":1,"schemaVersion":"x"`),
		rep(`"schemaVersion":1`, `"schemaVersion":"x","schemaVersion":1`),
		rep(`"sequence":3`, `"sequence":0`),
		rep(`"sequence":3`, `"sequence":-3`),
		rep(`"sequence":3`, `"sequence":3.0`),
		rep(`"sequence":3`, `"sequence":3.5`),
		rep(`"sequence":3`, `"sequence":3e0`),
		rep(`"sequence":3`, `"sequence":30E-1`),
		rep(`"sequence":3`, `"sequence":"3"`),
		rep(`"sequence":3`, `"sequence":123456789012345`),
		rep(`"sequence":3`, `"sequence":1234567890123456`),
		rep(`"sequence":3`, `"sequence":9007199254740993`),
		rep(`"sequence":3`, `"sequence":99999999999999999999`),
		rep(`"sequence":3`, `"sequence":3,"sequence":4`),
		rep(`"sequence":3`, `"sequence":null`),
		rep(`"sequence":3`, `"sequence":-`),
		rep(`"sequence":3`, `"sequence":3.`),
		rep(`"sequence":3`, `"sequence":3e`),
		rep(`"captureId":"C"`, `"captureId":7`),
		rep(`"captureId":"C"`, `"captureId":"C\u0041"`),
		rep(`"captureId":"C"`, `"captureId":"C\/"`),
		rep(`"captureId":"C"`, `"captureId":"C\x"`),
		rep(`"captureId":"C"`, `"captureId":"C\u00"`),
		rep(`"captureId":"C"`, `"captureId":"\ud800"`),
		rep(`"captureId":"C"`, `"captureId":"C`+"\x01"+`"`),
		rep(`"captureId":"C"`, `"captureId":"C`+"\xff\xfe"+`"`),
		rep(`"captureId":"C"`, `"captureId":"C`+"\x7f"+`"`),
		rep(`"captureId":"C"`, `"captureId":"C","captureId":"D"`),
		rep(`"captureId"`, `"captur\u0065Id"`),
		rep(`"captureId"`, `"captureId\u0000"`),
		rep(`"stage":"native_in"`, `"stage":"sideways"`),
		rep(`"stage":"native_in"`, `"stage":"native\u005fin"`),
		rep(`"stage":"native_in"`, `"stage":1`),
		rep(`"stage":"native_in"`, `"stage":"meta","stage":"native_in"`),
		rep(`"stage"`, `"stag\u0065"`),
		rep(`"eventType":"e",`, ``),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":null`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":"text"`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":12`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":[]`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":{}`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload": { "a" : [ 1 , { } , [ ] ] } `),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":{"a":[1,]}`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":{"a":1,}`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":{"a"}`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":{"a":tru}`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":{"a":nul}`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":{"a":[1 2]}`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":{"a":01}`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":{"a":-}`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":{"a":.5}`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":{"a":+1}`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":{"a":1e+}`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":{"a":"`+"\t"+`"}`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":{"a":"0123456789abcdef0123456789\\\"\u00e9\n"}`),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":`+strings.Repeat("[", 200)+strings.Repeat("]", 200)),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":`+strings.Repeat(`{"a":`, 100)+"1"+strings.Repeat("}", 100)),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":`+strings.Repeat("[", 200)+strings.Repeat("]", 199)),
		rep(`"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]}`, `"payload":{"a":[1,2.5,-3e2,true,false,null,"x\"y"]},"payload":1`),
		rep(`"redactions":[]`, `"redactions":[ ]`),
		rep(`"redactions":[]`, `"redactions":[{"rule":"r","pointer":"/x","count":2,"originalLength":5}]`),
		rep(`"redactions":[]`, `"redactions":[{"rule":1}]`),
		rep(`"redactions":[]`, `"redactions":[null]`),
		rep(`"redactions":[]`, `"redactions":[1]`),
		rep(`"redactions":[]`, `"redactions":{}`),
		rep(`"redactions":[]`, `"redactions":null`),
		rep(`"redactions":[]`, `"redactions":[],"redactions":[]`),
		rep(`"redactions":[]`, `"redactions":[{"rule":"r","count":1.5}]`),
		base[:len(base)-1] + `,"cause":[1,2]}`,
		base[:len(base)-1] + `,"cause":[ 1 , 2 ]}`,
		base[:len(base)-1] + `,"cause":[]}`,
		base[:len(base)-1] + `,"cause":[0]}`,
		base[:len(base)-1] + `,"cause":[1.5]}`,
		base[:len(base)-1] + `,"cause":[1.0]}`,
		base[:len(base)-1] + `,"cause":["1"]}`,
		base[:len(base)-1] + `,"cause":[-1]}`,
		base[:len(base)-1] + `,"cause":1}`,
		base[:len(base)-1] + `,"cause":[1],"cause":[2]}`,
		base[:len(base)-1] + `,"cause":[1,]}`,
		base[:len(base)-1] + `,"model":"m","agent":"a","permissionMode":"p","cwdHash":"c","projectHash":"h","source":"history","notes":"n"}`,
		base[:len(base)-1] + `,"notes":"line\nbreak"}`,
		base[:len(base)-1] + `,"notes":7}`,
		base[:len(base)-1] + `,"model":"m","model":"n"}`,
		base[:len(base)-1] + `,"future":{"a":[1,{"b":null}]},"z":true,"future":2}`,
		base[:len(base)-1] + `,"fut\u0075re":1}`,
		base[:len(base)-1] + `,"":1}`,
		base[:len(base)-1] + `,"x` + "\xff" + `":"` + "\xc3" + `"}`,
		base[:len(base)-1] + `,"x":}`,
		base[:len(base)-1] + `,"x"}`,
		base[:len(base)-1] + `,}`,
		base[:len(base)-1] + `,"x":1`,
		`{}`,
		`[]`,
		`"text"`,
		`12`,
		`null`,
		`not json`,
		`{"schemaVersion":1}`,
		`{"schemaVersion":0,"captureId":"C","sequence":3,"timestamp":"t","provider":"p","sessionId":"s","turnId":"","stage":"native_in","eventType":"e","payload":{},"redactions":[]}`,
		`{"schemaVersion":0,"captureId":"C","sequence":3,"timestamp":"t","provider":"p","sessionId":"s","turnId":"","stage":"native_in","eventType":"e","payload":{},"redactions":[],"schemaFail":1}`,
		base[:len(base)-1] + `,"schemaFail":1}`,
		"\r",
		"",
		"   ",
	}
	for i := 1; i < len(base); i += 7 {
		out = append(out, base[:i]) // cut short: mid-token, mid-string, mid-number
	}
	return out
}

func TestScanMatchesOldOnOddLines(t *testing.T) {
	good := `{"schemaVersion":1,"captureId":"C","sequence":1,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"meta","eventType":"capture.start","payload":{},"redactions":[]}`
	for i, l := range oddLines() {
		// Alone, between good lines, and as a torn last line.
		sameAsOld(t, fmt.Sprintf("odd %d %q", i, l), []byte(l+"\n"))
		sameAsOld(t, fmt.Sprintf("odd %d between", i), []byte(good+"\n"+l+"\n"+good+"\n"))
		sameAsOld(t, fmt.Sprintf("odd %d torn", i), []byte(good+"\n"+l))
	}
}

// TestScanTakesPlainLines checks that the lines evcap writes do take the
// one-pass road (a scanner that always fell back would pass every
// differential test and speed up nothing).
func TestScanTakesPlainLines(t *testing.T) {
	fast := 0
	for name, data := range storedCaptures(t) {
		if strings.Contains(name, "validate_errors") {
			continue // bad on purpose
		}
		var s lineScanner
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) == 0 || !gjson.ValidBytes(l) || gjson.GetBytes(l, "schemaVersion").Int() != 1 {
				continue
			}
			if _, err := parseRecordSlow(l); err != nil {
				continue
			}
			var rec Record
			if !s.scanRecord(l, &rec, false) {
				t.Errorf("%s: plain line took the slow path: %.200s", name, l)
			}
			fast++
		}
	}
	if fast < 100 {
		t.Fatalf("only %d plain lines checked", fast)
	}
}

// FuzzScanMatchesOld compares the readers on arbitrary input, as a single
// record line and as a capture stream.
func FuzzScanMatchesOld(f *testing.F) {
	for _, l := range oddLines() {
		f.Add([]byte(l))
	}
	for i, l := range corpusLines(f, 3) {
		payload, _ := EncodeNativeLine(l)
		f.Add(AppendRecord(nil, &Record{SchemaVersion: 1, CaptureID: "C", Sequence: int64(i + 1), Timestamp: "t",
			Provider: "p", Stage: StageNativeIn, EventType: "e", Payload: payload, Cause: []int64{1},
			Redactions: []Redaction{{Rule: "r", Pointer: "/p", Count: 1, OriginalLength: 3}}, Notes: "n"}))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsOld(t, "fuzz", data)
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			// The first line alone, with its newline and without (torn).
			sameAsOld(t, "fuzz first line", data[:i+1])
			sameAsOld(t, "fuzz first line torn", data[:i])
		}
	})
}

// TestLineSourceLetsGoOfALongLine reads a line far over lineBufKeep and
// then short lines from a reader that gives all it is asked for: the
// buffer must be back to lineBuf within a few short lines, not hold the
// long line's memory until everything read ahead into it is used up.
func TestLineSourceLetsGoOfALongLine(t *testing.T) {
	var in bytes.Buffer
	in.WriteString(strings.Repeat("x", 2*lineBufKeep))
	in.WriteByte('\n')
	short := strings.Repeat("y", 99) + "\n"
	const shorts = 4 * lineBuf / 100 // four buffers' worth
	for range shorts {
		in.WriteString(short)
	}
	s := newLineSource(bytes.NewReader(in.Bytes()))
	if l, err := s.Next(); err != nil || len(l) != 2*lineBufKeep {
		t.Fatalf("long line: %d bytes, %v", len(l), err)
	}
	for i := 1; i <= shorts; i++ {
		l, err := s.Next()
		if err != nil || string(l) != short[:99] {
			t.Fatalf("short line %d: %q, %v", i, l, err)
		}
		if i == 2*lineBuf/100 && len(s.buf) > lineBuf {
			t.Fatalf("after %d short lines (%d bytes) the buffer is still %d bytes", i, i*100, len(s.buf))
		}
	}
	if _, err := s.Next(); err != io.EOF {
		t.Fatalf("end: %v, want io.EOF", err)
	}
}
