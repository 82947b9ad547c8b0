package promote

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/replay"
)

// ErrRefused is returned when the sanitized capture would still fail the
// scan; nothing is written then.
var ErrRefused = errors.New("promote refused")

// Options configure Promote.
type Options struct {
	// Name is the scenario name: the fixture goes to Dir/<provider>/<Name>.
	Name string
	// Dir is the root of the fixture tree (fixtures/testdata).
	Dir string
	// Normalizer makes the provider's normalizer: it derives the
	// normalized_out records when the capture has none, and the native
	// golden.
	Normalizer func() replay.Normalizer
	// Source overrides the fixture's source description.
	Source string
	// CLI overrides the CLI name and version when set.
	CLI fixtures.CLI
	// Sanitize, when set, rewrites the fixture before anything else
	// (redaction); Scan, when set, must then pass or Promote refuses.
	Sanitize func(*fixtures.Fixture) error
	Scan     func(*fixtures.Fixture) error
}

var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// Promote writes the fixture directory for fx and returns its path.
func Promote(fx *fixtures.Fixture, opts Options) (string, error) {
	if !validName.MatchString(opts.Name) {
		return "", fmt.Errorf("promote: name %q: use lower-case letters, digits, '.', '_' and '-'", opts.Name)
	}
	if !validName.MatchString(fx.Provider) {
		return "", fmt.Errorf("promote: capture %s: provider %q is not a usable directory name", fx.Source, fx.Provider)
	}
	if opts.Normalizer == nil {
		return "", fmt.Errorf("promote: no normalizer for provider %q", fx.Provider)
	}
	fx = clone(fx)
	fx.Name = opts.Name
	if opts.Source != "" {
		fx.Source = opts.Source
	}
	if opts.CLI != (fixtures.CLI{}) {
		fx.CLI = opts.CLI
	}
	if opts.Sanitize != nil {
		if err := opts.Sanitize(fx); err != nil {
			return "", fmt.Errorf("promote %s: sanitize: %w", opts.Name, err)
		}
	}
	if opts.Scan != nil {
		if err := opts.Scan(fx); err != nil {
			return "", fmt.Errorf("%w: %s: scan after sanitizing: %w", ErrRefused, opts.Name, err)
		}
	}
	if len(fx.Stage(envelope.StageNormalizedOut)) == 0 {
		addNormalized(fx, opts.Normalizer)
	}
	files, err := Files(fx, opts.Normalizer)
	if err != nil {
		return "", fmt.Errorf("promote %s: %w", opts.Name, err)
	}
	dir := filepath.Join(opts.Dir, fx.Provider, opts.Name)
	if err := os.MkdirAll(filepath.Join(dir, fixtures.GoldenDir), 0o755); err != nil {
		return "", fmt.Errorf("promote %s: %w", opts.Name, err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return "", fmt.Errorf("promote %s: %w", opts.Name, err)
		}
	}
	return dir, nil
}

// Files returns the content of a fixture directory by relative path:
// fixture.json and golden/*.golden.
func Files(fx *fixtures.Fixture, normalizer func() replay.Normalizer) (map[string][]byte, error) {
	doc, err := fixtures.Marshal(fx)
	if err != nil {
		return nil, err
	}
	if err := fixtures.Validate(doc); err != nil {
		return nil, err
	}
	files := map[string][]byte{fixtures.FileName: doc}
	runs := []replay.Options{
		{Mode: replay.ModeNative, Normalizer: normalizer},
		{Mode: replay.ModeLegacy, Legacy: Legacy()},
	}
	for name, mk := range Formats() {
		runs = append(runs, replay.Options{Mode: replay.ModeNormalized, Format: name, Renderer: mk})
	}
	for _, o := range runs {
		out, err := replay.Output(fx, o)
		if err != nil {
			return nil, fmt.Errorf("golden %s: %w", replay.GoldenName(o), err)
		}
		files[filepath.Join(fixtures.GoldenDir, replay.GoldenName(o))] = out
	}
	return files, nil
}

// addNormalized derives normalized_out records from the native lines, as
// an integration would have recorded them, numbered after the last record.
func addNormalized(fx *fixtures.Fixture, normalizer func() replay.Normalizer) {
	var last int64
	for _, e := range fx.Events {
		last = max(last, e.Sequence)
	}
	for _, e := range replay.Normalize(fx, normalizer) {
		cause := e.Cause
		e.Cause = nil
		last++
		fx.Events = append(fx.Events, fixtures.Event{Sequence: last, Stage: envelope.StageNormalizedOut,
			EventType: string(e.Kind), Payload: bytes.TrimSuffix(replay.EncodeEvent(e), []byte("\n")), Cause: cause})
	}
}

func clone(fx *fixtures.Fixture) *fixtures.Fixture {
	c := *fx
	c.Events = append([]fixtures.Event(nil), fx.Events...)
	return &c
}
