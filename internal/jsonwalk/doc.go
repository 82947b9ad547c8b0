// Package jsonwalk walks the bytes of one JSON value once, validating it,
// and lets a caller see every token and rewrite strings (keys and values)
// and scalars in the same pass, into an output that is byte-identical to the
// input outside what was rewritten.
//
// It is the one JSON walker of evcap's security-critical path: redact finds
// secrets in every string through it and sanitize maps ids and times
// through it, with one string decoder (encoding/json's: escapes resolved,
// invalid UTF-8 and lone surrogates become U+FFFD) and one depth limit
// (MaxDepth).
//
// A Walker is reused across values: its path, decoding and output buffers
// keep their capacity, so walking a value that needs no rewrite allocates
// nothing. A Visitor sees each token with the path that leads to it;
// Token.Splice replaces parts of a string's decoded text (the rest keeps
// its original escapes), Token.Replace the whole token.
//
// What it does not do: build a tree, unmarshal into Go values, re-encode
// anything it was not asked to rewrite, or read from an io.Reader (a value
// is one capture line or payload, already in memory).
package jsonwalk
