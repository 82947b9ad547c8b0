package source

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
	"github.com/google/go-cmp/cmp"
)

const (
	fixtureDir = "../fixtures/testdata/claude/tools"
	rawFile    = "../testdata/corpus/claude/tools.stdout.jsonl"
)

// captureFile writes the tools fixture as a capture into a temporary file.
func captureFile(t *testing.T) (string, *fixtures.Fixture) {
	t.Helper()
	fx, err := fixtures.Load(os.DirFS(fixtureDir), ".")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(FixtureRecords(fx))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "tools.jsonl")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, fx
}

func readAll(t *testing.T, in *Input) []byte {
	t.Helper()
	b, err := io.ReadAll(in.Reader())
	if err != nil {
		t.Fatalf("read %s: %v", in.Name, err)
	}
	if err := in.Close(); err != nil {
		t.Fatalf("close %s: %v", in.Name, err)
	}
	return b
}

func TestOpenKinds(t *testing.T) {
	capPath, fx := captureFile(t)
	capBytes, _ := os.ReadFile(capPath)
	rawBytes, err := os.ReadFile(rawFile)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(fixtureDir, fixtures.FileName))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		reason string
		name   string
		stdin  []byte
		kind   Kind
		want   []byte
	}{
		{"a capture file streams as it is", capPath, nil, KindCapture, capBytes},
		{"raw CLI output streams as it is", rawFile, nil, KindRaw, rawBytes},
		{"a fixture directory reads as the capture records it holds", fixtureDir, nil, KindFixture, capBytes},
		{"fixture.json itself does too", filepath.Join(fixtureDir, fixtures.FileName), nil, KindFixture, capBytes},
		{"a capture on stdin", "-", capBytes, KindCapture, capBytes},
		{"raw output on stdin", "-", rawBytes, KindRaw, rawBytes},
		{"a fixture.json on stdin", "-", doc, KindFixture, capBytes},
		{"empty stdin is raw output with no lines", "-", nil, KindRaw, nil},
	}
	for _, c := range cases {
		in, err := Open(c.name, bytes.NewReader(c.stdin))
		if err != nil {
			t.Errorf("%s: Open(%s): %v", c.reason, c.name, err)
			continue
		}
		if in.Kind != c.kind {
			t.Errorf("%s: Open(%s).Kind = %v, want %v", c.reason, c.name, in.Kind, c.kind)
		}
		if (in.Kind == KindFixture) != (in.Fixture != nil) {
			t.Errorf("%s: Kind %v with Fixture %v", c.reason, in.Kind, in.Fixture != nil)
		}
		if in.Fixture != nil && len(in.Fixture.Events) != len(fx.Events) {
			t.Errorf("%s: fixture has %d events, want %d", c.reason, len(in.Fixture.Events), len(fx.Events))
		}
		if got := readAll(t, in); !bytes.Equal(got, c.want) {
			t.Errorf("%s: bytes differ (%d bytes, want %d):\n%s", c.reason, len(got), len(c.want), cmp.Diff(string(c.want), string(got)))
		}
	}
}

// TestFixtureRecordsRoundTrip checks that the records made from a fixture
// read back, through envelope's reader, to the fixture's events.
func TestFixtureRecordsRoundTrip(t *testing.T) {
	fx, err := fixtures.Load(os.DirFS("../fixtures/testdata/claude/long-text-partial"), ".")
	if err != nil {
		t.Fatal(err)
	}
	rd := envelope.NewReader(FixtureRecords(fx), "fixture", envelope.ReaderOptions{})
	var got []fixtures.Event
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Provider != fx.Provider || rec.CaptureID != "fixture:"+fx.Name {
			t.Fatalf("record %d: provider %q captureId %q", rec.Sequence, rec.Provider, rec.CaptureID)
		}
		got = append(got, fixtures.FromRecord(rec))
	}
	if len(got) < 600 {
		t.Fatalf("read %d records, want the fixture's %d", len(got), len(fx.Events))
	}
	if d := cmp.Diff(fx.Events, got); d != "" {
		t.Errorf("records differ from the fixture's events (-fixture +records):\n%s", d)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	noRead := filepath.Join(dir, "secret.jsonl")
	if err := os.WriteFile(noRead, []byte("x\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, fixtures.FileName), []byte("{\n\"name\": 3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		reason string
		name   string
		is     error
		says   string
	}{
		{"a directory without fixture.json", dir, ErrDirectory, dir},
		{"a missing file", filepath.Join(dir, "missing.jsonl"), os.ErrNotExist, "missing.jsonl"},
		{"a fixture.json that breaks the schema", bad, ErrInvalidFixture, bad},
	}
	if os.Geteuid() != 0 { // root reads a mode-000 file
		cases = append(cases, struct {
			reason string
			name   string
			is     error
			says   string
		}{"an unreadable file", noRead, os.ErrPermission, "secret.jsonl"})
	}
	for _, c := range cases {
		start := time.Now()
		in, err := Open(c.name, nil)
		if err == nil {
			in.Close()
			t.Errorf("%s: Open(%s) succeeded", c.reason, c.name)
			continue
		}
		if !errors.Is(err, c.is) {
			t.Errorf("%s: Open(%s) = %v, want errors.Is %v", c.reason, c.name, err, c.is)
		}
		if !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: error %q does not name %q", c.reason, err, c.says)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: took %v to fail", c.reason, d)
		}
	}
}

// TestOpenLongFirstLine sniffs a first line longer than any buffer.
func TestOpenLongFirstLine(t *testing.T) {
	line := `{"type":"assistant","text":"` + strings.Repeat("x", 17<<20) + `"}` + "\n"
	in, err := Open("-", strings.NewReader(line+"second\n"))
	if err != nil {
		t.Fatal(err)
	}
	if in.Kind != KindRaw {
		t.Errorf("kind %v, want raw", in.Kind)
	}
	if got := readAll(t, in); len(got) != len(line)+len("second\n") {
		t.Errorf("read %d bytes, want %d", len(got), len(line)+7)
	}
}

// TestIsCaptureLine: a capture record is told from a native line however
// its members are spelled, and a long line that is no capture record is
// turned away whether or not its text mentions a stage (the prefilter
// that spares the validation of a line without one must not decide on
// its own).
func TestIsCaptureLine(t *testing.T) {
	long := strings.Repeat("build output ", 1<<20)
	for _, c := range []struct {
		line string
		want bool
	}{
		{`{"schemaVersion":1,"captureId":"01JDXQ4ZP8V6S1N0W9H3B5C7D2","sequence":1,"stage":"meta","payload":{}}`, true},
		{`{"schemaVersion":1,"st\u0061ge":"meta","payload":{}}`, true},
		{`{"schemaVersion":1,"\u0073\u0074\u0061\u0067\u0065":"meta"}`, true},
		{`{"schemaVersion":1,"payload":{}}`, false},
		{`{"schemaVersion":1,"stage":"meta"`, false}, // torn
		{`["schemaVersion","stage"]`, false},
		{`{"type":"user","text":"` + long + `"}`, false},
		{`{"type":"user","text":"` + long + ` stage two"}`, false},
		{`{"type":"user","schemaVersion":1,"stage":"` + long + `"}`, true},
	} {
		if got := IsCaptureLine([]byte(c.line)); got != c.want {
			t.Errorf("IsCaptureLine(%.80q…) = %v, want %v", c.line, got, c.want)
		}
	}
}
