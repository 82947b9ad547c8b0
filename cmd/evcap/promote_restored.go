package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/history"
	"github.com/evcap/evcap/promote"
	"github.com/evcap/evcap/replay"
	"github.com/evcap/evcap/replayrun"
)

// promoteRestored puts the imported stored session at path (evcap import)
// into the live fixture at fixtureDir as fixtureDir/restored, sanitized and
// scanned exactly as the live capture was, with the goldens of its own
// history normalizer. Replaying the live fixture then also checks that the
// restored session shows what the live run showed (history.Compare); when
// they already differ, promote says so and keeps both, since that fixture
// is the regression test of the restore path.
func promoteRestored(ctx context.Context, s streams, fixtureDir, path string, paths *machinePaths) error {
	clean, findings, err := sanitizeForPromote(ctx, path, path, paths)
	if clean != "" {
		defer os.Remove(clean)
	}
	if err != nil {
		return err
	}
	if len(findings) > 0 {
		for _, f := range findings {
			fmt.Fprintln(s.err, f)
		}
		return fmt.Errorf("%s: refusing to add the restored session: %d finding(s) remain after sanitizing", path, len(findings))
	}
	fx, err := replay.LoadCaptureFile(clean)
	if err != nil {
		return err
	}
	if !fx.Restored {
		return fmt.Errorf("%s: not an imported stored session (make one with evcap import); its native records have no source \"history\"", path)
	}
	norm := func() replay.Normalizer { n, _ := history.NewNormalizer(fx.Provider); return n }
	if _, err := history.NewNormalizer(fx.Provider); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	stage, err := os.MkdirTemp(fixtureDir, ".evcap-restored-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	staged, err := promote.Promote(fx, promote.Options{Name: replayrun.RestoredDir, Dir: stage, Normalizer: norm, Source: filepath.Base(path)})
	if err != nil {
		return err
	}
	m, err := paths.machine()
	if err != nil {
		return err
	}
	if found, err := promote.ScanFixture(ctx, staged, m); err != nil || len(found) > 0 {
		if err != nil {
			return err
		}
		for _, f := range found {
			fmt.Fprintln(s.err, f)
		}
		return fmt.Errorf("%s: refusing to add the restored session: %d finding(s) in it or its goldens", path, len(found))
	}
	target := filepath.Join(fixtureDir, replayrun.RestoredDir)
	if err := os.RemoveAll(target); err != nil {
		return err
	}
	if err := os.Rename(staged, target); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "added the restored session %s to %s (%s, %s)\n", path, target, fixtures.FileName, goldenList(target))
	d, err := replayrun.CompareRestored(fixtureDir)
	if err != nil {
		return err
	}
	if d != nil {
		fmt.Fprintf(s.err, "evcap: promote: the restored session differs from the live run: %v (replay of this fixture fails until the restore path shows the same)\n", d)
	}
	return nil
}
