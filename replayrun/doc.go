// Package replayrun is evcap replay as a library: it turns paths (a
// fixture directory or its fixture.json, a tree of fixtures, a capture
// file, "-" for standard input, a named pipe) into inputs, plans the
// checks each input gets, runs them through package replay, updates
// goldens when asked, and returns one Result per check with the exit
// status the worst of them gives. A CI runner or an IDE backend calls Run
// exactly as the evcap replay command does.
//
// Planning: a capture is replayed in native mode. A fixture is checked
// against every golden it has: native when it has normalized.golden, every
// renderer (promote.Formats) it has a golden of, legacy when it has
// legacy.golden, each exec golden whose command was recorded with it
// (golden/exec-NAME.command), and the restored session it keeps
// (promote --restored). Options narrow or replace that plan: a mode, a
// format, a rechunking seed, an exec command.
//
// The package does not parse flags, print, or choose colours: Options are
// the flags of evcap replay as typed fields, and the caller formats the
// Results (their JSON form is what evcap replay --json prints). It does
// not promote or sanitize captures (package promote does) and does not
// compare outputs itself (package replay does). It registers no flags and
// imports neither testing nor any golden-file library.
package replayrun
