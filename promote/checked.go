package promote

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/sanitize"
	"github.com/evcap/evcap/scan"
)

// Machine is what sanitize and scan know of the machine a capture was
// made on: the paths they write as <HOME>, <PROJECT> and <TMP>, and the
// redaction config (custom rules, allowlist). evcap fills it from its
// --home, --project, --tmp and --config flags.
type Machine struct {
	Home    string
	Project string
	// DefaultProject is the project root when neither Project nor the
	// capture names one.
	DefaultProject string
	Temp           []string
	Config         redact.Config
}

func (m Machine) scanner() (*scan.Scanner, error) {
	return scan.New(scan.Options{Home: m.Home, Project: m.Project, Temp: m.Temp, Config: m.Config})
}

// SanitizeAndScan is the gate in front of every fixture: it sanitizes the
// capture in r (named name in messages and findings) into out exactly as
// evcap sanitize does, then reads out back from its start and scans it as
// evcap scan does. The findings are what would still leak; a capture with
// any must not become a fixture. out is usually a temporary file the
// caller creates and removes (it holds the sanitized capture to load on
// success). ctx is checked per record by both passes.
func SanitizeAndScan(ctx context.Context, r io.Reader, name string, out io.ReadWriteSeeker, m Machine) ([]scan.Finding, error) {
	opts := sanitize.Options{Home: m.Home, Project: m.Project, DefaultProject: m.DefaultProject, Temp: m.Temp, Config: m.Config}
	if _, err := sanitize.SanitizeContext(ctx, r, name, out, opts); err != nil {
		return nil, fmt.Errorf("sanitize %s: %w", name, err)
	}
	if _, err := out.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read back the sanitized %s: %w", name, err)
	}
	sc, err := m.scanner()
	if err != nil {
		return nil, err
	}
	return sc.ReadContext(ctx, out, name, scan.KindCapture)
}

// ScanFixture scans a fixture directory Promote wrote (fixture.json and
// every golden) as evcap scan does: goldens are derived text (a delta
// reassembled, an answer rendered) and can hold what no single record did.
func ScanFixture(ctx context.Context, dir string, m Machine) ([]scan.Finding, error) {
	sc, err := m.scanner()
	if err != nil {
		return nil, err
	}
	res, err := sc.PathsContext(ctx, []string{dir})
	return res.Findings, err
}

// StagePrefix is the placeholder Checked's findings carry instead of the
// scratch directory they were found in, which no longer exists.
const StagePrefix = "<fixture>"

// Checked is Promote behind the scan: it promotes fx into a scratch
// directory first, scans the fixture and its goldens there (ScanFixture),
// and writes to opts.Dir only when nothing is found. On findings it
// returns them (each File starting with StagePrefix in place of the
// scratch directory) and writes nothing. fx should already have passed
// SanitizeAndScan.
func Checked(ctx context.Context, fx *fixtures.Fixture, opts Options, m Machine) (string, []scan.Finding, error) {
	stage, err := os.MkdirTemp("", "evcap-promote-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(stage)
	staged := opts
	staged.Dir = stage
	dir, err := Promote(fx, staged)
	if err != nil {
		return "", nil, err
	}
	findings, err := ScanFixture(ctx, dir, m)
	if err != nil {
		return "", nil, err
	}
	if len(findings) > 0 {
		for i := range findings {
			findings[i].File = strings.Replace(findings[i].File, dir, StagePrefix, 1)
		}
		return "", findings, nil
	}
	out, err := Promote(fx, opts)
	return out, nil, err
}
