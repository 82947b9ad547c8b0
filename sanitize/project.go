package sanitize

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/jsonpick"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/providers"
	"github.com/tidwall/gjson"
)

// The project root a capture names applies to the whole capture when the
// input is a file (an io.ReadSeeker): a record before the one that names it
// must get <PROJECT> too. Sanitize finds it without reading the file
// twice: records are held, unprocessed, until one names the root (in
// practice Claude's system/init or opencode's first session event, among
// the first few records), then everything held is processed with it. Only
// when MaxHeld bytes of records go by without one (Codex and Gemini
// streams name none) is the file searched for it from the start, a byte
// search for the keys a declaration needs (see projectKeys) that parses
// nothing else, before sanitizing from the start. A pipe cannot be read
// ahead of what is written: there the root applies from the record that
// names it on.

// held is a record read ahead of sanitizing, or the error reading it gave.
type held struct {
	rec  *envelope.Record
	err  error
	line int64
}

// lookahead reads records from rd until one names the project root (which
// it then sets), the input ends, or maxHeld bytes are held. It returns the
// records read and whether the root is settled: false means the held
// records are to be dropped and the input searched from the start.
func (s *sanitizer) lookahead(ctx context.Context, rd *envelope.Reader) ([]held, bool, error) {
	var out []held
	size := 0
	for {
		if err := context.Cause(ctx); err != nil {
			return nil, false, err
		}
		rec, err := rd.Next()
		if err == io.EOF {
			return out, true, nil
		}
		out = append(out, held{rec: rec, err: err, line: rd.Line()})
		if err != nil {
			var le *envelope.LineError
			if errors.As(err, &le) && !errors.Is(err, envelope.ErrTornLine) {
				continue // reading goes on after a bad line; sanitizing will stop at it
			}
			return out, true, nil // a torn last line or a read error: nothing follows
		}
		_, _, body := split(rec)
		if p := declaredProject(rec.Stage, rec.Provider, body, s.projectKeys); p != "" {
			return out, true, s.setProject(p)
		}
		size += len(rec.Payload) + 256
		if size > s.maxHeld {
			return nil, false, nil
		}
	}
}

// searchProject reads r to its end for the first record that names the
// project root, and sets it. Only lines that hold a key a declaration
// needs are parsed.
func (s *sanitizer) searchProject(ctx context.Context, r io.Reader, name string) error {
	lr := lines.NewReader(r)
	for n := 0; ; n++ {
		if n%1024 == 0 {
			if err := context.Cause(ctx); err != nil {
				return err
			}
		}
		line, err := lr.Next()
		if err != nil {
			if err == io.EOF || errors.Is(err, lines.ErrTorn) {
				return nil // a torn last line is not a record
			}
			return fmt.Errorf("sanitize %s: %w", name, err)
		}
		if !jsonpick.MayHoldKey(line, s.projectKeys) {
			continue
		}
		rec, err := envelope.NewReader(bytes.NewReader(append(line, '\n')), name, envelope.ReaderOptions{}).Next()
		if err != nil {
			continue
		}
		_, _, body := split(rec)
		if p := declaredProject(rec.Stage, rec.Provider, body, s.projectKeys); p != "" {
			return s.setProject(p)
		}
	}
}

func (s *sanitizer) setProject(p string) error {
	if p == s.project {
		return nil
	}
	s.project = p
	return s.rebuild()
}

// learnProject takes the project root from rec when none is settled: no
// Options.Project, and the root is still the default.
func (s *sanitizer) learnProject(rec *envelope.Record, body []byte) error {
	if s.opts.Project != "" || s.project != s.opts.DefaultProject && s.project != "" {
		return nil
	}
	if p := declaredProject(rec.Stage, rec.Provider, body, s.projectKeys); p != "" {
		return s.setProject(p)
	}
	return nil
}

// declaredProject returns the working directory a record's payload body
// declares (providers.DeclaredProject), or "". keys are
// providers.ProjectKeys(): a body without one, or of a stage that
// declares none, is not searched or parsed.
func declaredProject(stage envelope.Stage, provider string, body []byte, keys []string) string {
	if !providers.StageDeclares(stage) || !jsonpick.MayHoldKey(body, keys) || !gjson.ValidBytes(body) {
		return ""
	}
	return providers.DeclaredProject(stage, provider, body)
}
