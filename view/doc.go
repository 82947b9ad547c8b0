// Package view writes a capture as one self-contained HTML page: a
// timeline with a lane per stage (native_in, normalized_out, legacy_out),
// one row per record with its sequence and time offset, cause links drawn
// from normalized and legacy records to the native lines they came from,
// tool calls as cards with status and duration, text blocks reassembled
// with their chunk boundaries on demand, errors and retries highlighted,
// filters by stage and kind, search and keyboard navigation.
//
// The page needs nothing but itself: the CSS and JavaScript (plain, no
// framework, in assets/ and embedded with go:embed) are inlined, and the
// capture is embedded as JSON in a <script type="application/json"> element
// with every "<" written as \u003c, so no capture text can close the
// element. The script puts capture text into the page only through
// textContent, and a Content-Security-Policy forbids every network request.
// The list is virtualized (only the rows near the viewport exist), so a
// capture of tens of thousands of records scrolls without freezing.
//
// Write streams: records are copied into the page one at a time, and only
// payloads over Options.MaxPayload are shortened (to a marked excerpt). The
// package does not normalize, sanitize or know provider formats beyond what
// the records say: view a sanitized capture if the page is to be shared.
package view
