package replayrun

import (
	"os"
	"path/filepath"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/history"
	"github.com/evcap/evcap/source"
)

// RestoredDir is where a fixture keeps the restored (imported) session of
// the same run (evcap promote --restored): a fixture of its own, inside
// the live one.
const RestoredDir = "restored"

// CompareRestored compares a fixture with the restored session it keeps
// (fixtureDir/RestoredDir), after both are folded into chat groups:
// the same messages, tool calls with status and result, and final answer.
// It returns nil, nil when they match or the fixture keeps no restored
// session.
func CompareRestored(fixtureDir string) (*history.Difference, error) {
	rdir := filepath.Join(fixtureDir, RestoredDir)
	if _, err := os.Stat(filepath.Join(rdir, fixtures.FileName)); err != nil {
		return nil, nil
	}
	live, err := source.Open(fixtureDir, nil)
	if err != nil {
		return nil, err
	}
	defer live.Close()
	restored, err := source.Open(rdir, nil)
	if err != nil {
		return nil, err
	}
	defer restored.Close()
	return history.CompareCaptures(live.Reader(), fixtureDir, restored.Reader(), rdir, history.CompareOptions{})
}

// hasRestored reports whether a fixture directory keeps a restored session.
func hasRestored(fixtureDir string) bool {
	_, err := os.Stat(filepath.Join(fixtureDir, RestoredDir, fixtures.FileName))
	return err == nil
}

// runRestored checks a fixture against the restored session it keeps.
func runRestored(path, fixtureDir string) Result {
	r := Result{Path: path, Check: "restored"}
	d, err := CompareRestored(fixtureDir)
	switch {
	case err != nil:
		r.Status, r.Error = StatusError, err.Error()
	case d != nil:
		r.Status, r.Error = StatusMismatch, "the restored session differs from the live run: "+d.Error()
	default:
		r.Status = StatusOK
	}
	return r
}
