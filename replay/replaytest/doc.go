// Package replaytest holds the go test helpers that make an evcap fixture
// the test input of your own code: Stream re-drives your stream pipeline
// (func(io.Reader, io.Writer) error) from the bytes the agent CLI printed,
// under several chunkings, and compares its output with a golden; Events
// feeds your own normalizer line by line and compares the events it
// returns, JSON-encoded, with a golden; Golden replays a fixture through
// normalizers and renderers built on evcap's event model.
//
// Importing the package registers no flags. Goldens are rewritten when
// the test binary has a boolean -update flag of its own that is set (for
// example goldie's, or one the test defines), or when the environment has
// EVCAP_UPDATE=1, which works in every package of a module at once:
//
//	EVCAP_UPDATE=1 go test ./...
//
// EVCAP_UPDATE=clean (or -update with a set -clean flag) also removes the
// stale goldens the helper owns before writing: for Stream and Events the
// files named after the test (golden/go-<test>*.golden), for Golden the
// goldens of the modes it was given. Nothing else in a golden directory is
// ever removed.
//
// The package writes golden files itself; it does not use goldie, so that
// its flags never come into your binary. The comparisons, chunkings and
// reports are package replay's, which imports no testing code.
package replaytest
