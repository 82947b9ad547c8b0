// Package gen writes large, realistic agent CLI output for benchmarks and
// for the secret-detection quality test: Claude Code partial-message
// stream-json, codex exec --json, opencode run --format json and Gemini CLI
// stream-json, in the shapes of the real corpus (testdata/corpus), at any
// size, from a seed.
//
// The same Options give the same bytes. Runs carry long tool outputs with
// tabs, newlines and machine paths (Options.Home, Project, Temp), one line
// of Options.BigLine bytes when asked, and fake secrets planted in three
// forms: whole, next to JSON escapes (\n, \t, \") and split across two to
// four streamed deltas. The secrets are assembled from pieces at run time,
// so no secret-shaped literal sits in the source; Stats.Planted says where
// each went, and Negatives gives values that look random but are not
// secrets (UUIDs, git SHAs, go.sum and npm integrity hashes, base64 images,
// already-redacted tokens), which are planted too.
//
// It does not record, redact or check anything: it only writes bytes.
// WriteCapture wraps what Write produces into native_in records of an
// evcap capture, for tools that read captures.
package gen
