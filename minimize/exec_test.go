package minimize

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/replay"
	"github.com/evcap/evcap/source"
)

// signatureLine returns the sequence of the one native line of the
// long-text capture that crashes testdata/stream_stats.py: its only
// signature_delta.
func signatureLine(t *testing.T, fx *fixtures.Fixture) int64 {
	t.Helper()
	var seq int64
	for _, e := range fx.Stage(envelope.StageNativeIn) {
		if bytes.Contains(e.Payload, []byte(`"signature_delta"`)) {
			if seq != 0 {
				t.Fatal("more than one signature_delta line")
			}
			seq = e.Sequence
		}
	}
	if seq == 0 {
		t.Fatal("no signature_delta line")
	}
	return seq
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
}

// TestExecFailsCrashingProgram is issue 12's case: a 620-line real Claude
// capture whose only problem for the user's program is one line that
// crashes it. The reduction keeps fewer than 10 native lines, that line
// among them, and the records derived from it.
func TestExecFailsCrashingProgram(t *testing.T) {
	needPython(t)
	fx := loadFixture(t, longText)
	bad := signatureLine(t, fx)
	abs, _ := filepath.Abs("testdata/stream_stats.py")
	run := ExecRunner(replay.ExecOptions{Command: "python3 " + abs}, 30*time.Second)
	ctx := context.Background()
	fails, want, err := ExecFails(ctx, fx, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want.Status != 1 {
		t.Fatalf("the whole run: %v, want exit status 1 (the KeyError)", want)
	}
	res, err := Fixture(ctx, fx, fails)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v -> %+v in %d runs, kept %v", res.Before, res.After, res.Stats.Tests, res.Kept)
	if res.Before.NativeLines < 600 {
		t.Errorf("started from %d native lines, want 600 or more", res.Before.NativeLines)
	}
	if res.After.NativeLines >= 10 || !contains(res.Kept, bad) {
		t.Errorf("kept native lines %v, want fewer than 10 including %d", res.Kept, bad)
	}
	for _, e := range res.Fixture.Events {
		if e.Stage != envelope.StageNativeIn && !allIn(e.Cause, map[int64]bool{bad: true}) && len(e.Cause) > 0 {
			t.Errorf("kept event %d derived from %v, not from the kept lines", e.Sequence, e.Cause)
		}
	}
	derived := 0
	for _, e := range fx.Events {
		if len(e.Cause) == 1 && e.Cause[0] == bad {
			derived++
		}
	}
	if got := res.After.Events - res.After.NativeLines; derived > 0 && got < derived {
		t.Errorf("kept %d derived records, want the %d derived from line %d", got, derived, bad)
	}
}

// TestExecFailsWithGolden: with a golden of the program's output, a run
// that prints a line the golden does not hold must print that same line.
func TestExecFailsWithGolden(t *testing.T) {
	fx := loadFixture(t, longText)
	bad := signatureLine(t, fx)
	// The program prints "BAD" for the signature line and "ok" for the
	// rest, exit status 0; its golden says "ok" throughout.
	run := ExecRunner(replay.ExecOptions{Command: `awk '/signature_delta/ {print "BAD"; next} {print "ok"}'`}, 30*time.Second)
	golden := bytes.Repeat([]byte("ok\n"), len(fx.Stage(envelope.StageNativeIn)))
	ctx := context.Background()
	fails, want, err := ExecFails(ctx, fx, run, golden)
	if err != nil {
		t.Fatal(err)
	}
	if want.Status != 0 || want.WrongLine != "BAD" {
		t.Fatalf("the whole run: %+v, want status 0 and wrong line BAD", want)
	}
	res, err := Fixture(ctx, fx, fails)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kept) != 1 || res.Kept[0] != bad {
		t.Errorf("kept %v, want just %d", res.Kept, bad)
	}
	if _, _, err := ExecFails(ctx, Subset(fx, nil), run, nil); !errors.Is(err, ErrNoFailure) {
		t.Errorf("a run the program passes: %v, want ErrNoFailure", err)
	}
}

// TestCommandFailsGoTest is the same reduction through a Go test of an
// outside module (testdata/usermod) that reads a fixture from its
// testdata: the fixture is written in place for each try and restored.
func TestCommandFailsGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test some twenty times")
	}
	fx := loadFixture(t, longText)
	bad := signatureLine(t, fx)
	mod := filepath.Join(t.TempDir(), "usermod")
	copyDir(t, "testdata/usermod", mod)
	fxDir := filepath.Join(mod, "testdata", "run")
	copyDir(t, longText, fxDir)
	target := filepath.Join(fxDir, fixtures.FileName)
	orig, _ := os.ReadFile(target)

	place, err := InPlace(target, WriteFixture)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	fails, out, err := CommandFails(ctx, fx, Command{Line: "go test ./ -run TestParseFixture", Dir: mod}, place)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), `unknown delta type "signature_delta"`) {
		t.Fatalf("the whole run fails for another reason:\n%s", out)
	}
	res, err := Fixture(ctx, fx, fails)
	if rerr := place.Restore(); rerr != nil {
		t.Fatal(rerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v -> %+v in %d go test runs, kept %v", res.Before, res.After, res.Stats.Tests, res.Kept)
	if res.After.NativeLines >= 10 || !contains(res.Kept, bad) {
		t.Errorf("kept native lines %v, want fewer than 10 including %d", res.Kept, bad)
	}
	if got, _ := os.ReadFile(target); !bytes.Equal(got, orig) {
		t.Error("the fixture was not restored")
	}
	if _, err := os.Stat(place.Backup()); !os.IsNotExist(err) {
		t.Errorf("backup %s still there: %v", place.Backup(), err)
	}
}

// TestWriteCapture reduces a capture held as records: the result is a
// valid capture, renumbered, with its meta records and causes intact.
func TestWriteCapture(t *testing.T) {
	fx := loadFixture(t, "../fixtures/testdata/claude/tools")
	c, err := ReadCapture(source.FixtureRecords(fx), "tools")
	if err != nil {
		t.Fatal(err)
	}
	// Keep the line behind the last normalized event and the one before.
	norm := c.Fixture.Stage(envelope.StageNormalizedOut)
	last := norm[len(norm)-1].Cause[0]
	native := nativeKept(c.Fixture)
	i := slices.Index(native, last)
	keep := []int64{native[i-1], native[i]}
	var b bytes.Buffer
	if err := c.WriteCapture(&b, Subset(c.Fixture, keep)); err != nil {
		t.Fatal(err)
	}
	rd := envelope.NewReader(&b, "reduced", envelope.ReaderOptions{})
	var n, nat int64
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n++; rec.Sequence != n {
			t.Errorf("record %d has sequence %d", n, rec.Sequence)
		}
		if rec.Stage == envelope.StageNativeIn {
			nat++
		}
		for _, x := range rec.Cause {
			if x >= rec.Sequence || x < 1 {
				t.Errorf("record %d: cause %d", rec.Sequence, x)
			}
		}
	}
	t.Logf("kept %v: %d records", keep, n)
	if nat != 2 || n <= 2 {
		t.Errorf("reduced capture: %d records, %d native; want 2 native lines and what they gave", n, nat)
	}
}

func contains(s []int64, v int64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
