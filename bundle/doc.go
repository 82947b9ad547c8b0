// Package bundle turns one evcap capture into a single file a person can
// attach to a bug report: a zip archive holding the sanitized capture, a
// manifest (versions, platform, the agent's flags, exit status, counts per
// stage and event type, the drift census) and summary.md, a markdown digest
// of the run ready to paste into an issue.
//
// The archive is a zip because it is the one format that every desktop
// opens with a double click (Windows Explorer, macOS Finder, Linux file
// managers) and that GitHub, GitLab and most trackers accept as an
// attachment; its entries can be read one by one without unpacking the
// rest. Entries carry a fixed modification time and mode, so the same
// capture always gives the same bytes.
//
// Build sanitizes the capture (package sanitize) into a scratch file,
// derives the manifest and summary from the sanitized records, then runs
// the leak gate (package scan, which is not the redactor and reads the
// decoded view of every file) over every file the archive will hold.
// Anything it finds makes Build fail with a *LeakError naming each file,
// line, sequence, rule and JSON pointer, and nothing is written: a bundle
// is either clean or not made.
//
// The package does not read files by name, look up the machine's paths or
// know the provider table: callers pass the capture as a reader, the paths
// in the sanitize and scan options, and a normalizer constructor for the
// census.
package bundle
