// Package replay runs a recorded agent run (a capture file or a fixture)
// through normalizers and renderers again and says, for people, where the
// output first differs from what was expected.
//
// Three modes:
//
//	native      native_in lines → a Normalizer → normalized events, compared
//	            with golden/normalized.golden or the recorded normalized_out
//	normalized  normalized_out events → a Renderer → text, compared with
//	            golden/<format>.golden
//	legacy      normalized_out events → a legacy Renderer → marker lines,
//	            compared with golden/legacy.golden or the recorded legacy_out
//
// Records are taken in sequence order, never timestamp order. A Mismatch
// names the first diverging record (sequence, stage, event type), the
// native lines behind it (through cause), a short line diff of our own
// making (stable from release to release) and the command that updates the
// golden when the change is intended.
//
// Rechunking (Options.Rechunk) re-splits every text, thinking and tool
// input delta at seeded random points, in the native lines where the
// provider format allows it and in the normalized events, and checks that
// the normalized text and the rendered output do not change: boundary bugs
// (text lost or doubled where a delta ends) show up as a Mismatch.
// Rechunk.Cumulative (native mode) then rewrites the delta lines into the
// cumulative snapshots some Claude-compatible providers send
// (CumulativeLines) and replays them through Options.CumulativeNormalizer;
// a normalizer that reads snapshots as pieces fails at the first native
// line whose text it repeats.
//
// RunCapture replays a capture file; in native mode against the recorded
// normalized_out it streams the capture in constant memory (falling back to
// the in-memory path when sequences are not in order) and reports exactly
// what LoadCapture followed by Run would.
//
// Code of other projects is replayed in two more ways. NativeStream gives
// a fixture's native lines exactly as the CLI printed them; Chunking splits
// that stream (whole, line, byte, seeded random); Drive feeds it to a Go
// Pipeline (func(io.Reader, io.Writer) error) and Exec to any command's
// stdin, each attributing every output line to the native lines being fed
// while it was written, and CompareDriven turns a difference from a golden
// into a Mismatch that names the chunking, the first diverging output line
// and those native lines. CheckExec runs a command once per chunking
// against golden/exec-NAME.golden (evcap replay --exec).
//
// The package declares the Normalizer and Renderer interfaces it consumes
// and imports no normalizer or renderer: callers pass their own. It imports
// neither testing nor any golden-file library and registers no flags, so a
// program may import it freely; the go test helpers built on it are in
// replay/replaytest. It does not sanitize or write fixtures (package
// promote does).
package replay
