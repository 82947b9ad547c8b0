// Package scan is evcap's leak gate: it reads captures, fixtures, goldens
// and bundles and reports every place that still holds a secret, a machine
// path or a volatile id, so that CI, `evcap bundle` and `evcap promote` can
// refuse to let it out.
//
// The gate is deliberately not the redactor. Package redact is built for
// speed (keyword prefilters on raw bytes, rules selected per line, fast
// paths for lines it has proved clean); a gate that shared those shortcuts
// would share their blind spots, and would call clean exactly what the
// redactor missed. So scan has its own rules (rules.go), its own matcher
// and its own view of the input. The matcher's only shortcut is its own
// prefilter (prefilter.go): literals derived mechanically from each rule's
// regular expression, that every match must hold, found with one search
// per piece of decoded text; a rule is skipped only where its expression
// provably cannot match, never because of a keyword list shared with
// redact. The view is what a reader would see, not the bytes on disk:
//
//   - every JSON string is fully unescaped, and object keys are checked as
//     well as values;
//   - a string that holds JSON (a native line kept as text because of
//     leading whitespace, an SSE "data:" line, a legacy marker's argument)
//     is parsed and walked in turn;
//   - literal escapes left in text (\u0073, \n, \") are decoded;
//   - candidates in base64 or base64url (16 characters or more, decoding to
//     printable text) and percent-encoding are decoded and checked again,
//     to a depth of two;
//   - streamed deltas are put back together per block (a Claude content
//     block, a Gemini assistant message, an opencode part field, a
//     normalized text or thinking block, legacy delta markers), however far
//     apart their parts are, and the whole block is checked;
//   - a private key's body lines are flagged when they follow its BEGIN
//     line (or a redaction token standing for it) on later lines.
//
// Each finding names the file, the line (1-based), the record's sequence
// number, the rule, the JSON pointer of the string it was found in (for a
// pointer into JSON held inside a string, the pointer continues as if that
// JSON were parsed in place) and the decoding it took to see it. Findings
// never hold the secret.
//
// Input that is neither a capture, a fixture nor a file of a fixture tree
// or bundle is refused with ErrNotScannable rather than called clean.
//
// Read and Paths return every finding; a Tally (TallyContext) counts them
// per file and rule and keeps only the first few of each, which is what
// `evcap scan` prints, so its memory does not grow with the findings.
//
// A file is read by one goroutine, its lines are checked by GOMAXPROCS
// workers, and their results are applied in file order (pipeline.go):
// what is reported, in what order, and the errors do not depend on how
// the lines were shared out.
//
// The package does not change anything: sanitize does that. It does not
// know the machine it runs on either: callers pass the home, project and
// temporary paths to look for.
package scan
