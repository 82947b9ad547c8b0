package event

// Disposition says what a normalizer does with one kind of native event.
// It feeds the drift census: a new CLI version that emits shapes the
// normalizer does not know shows up as DispositionUnknown.
type Disposition string

// The dispositions a normalizer can report.
const (
	// DispositionHandled: the native event is mapped to normalized events.
	DispositionHandled Disposition = "handled"
	// DispositionIgnored: the normalizer drops it on purpose (Reason says why).
	DispositionIgnored Disposition = "ignored"
	// DispositionUnknown: the normalizer has never seen this type; it is
	// passed on as a KindUnknown event.
	DispositionUnknown Disposition = "unknown"
)

// Classification is a normalizer's verdict on one native line, for the census.
type Classification struct {
	// NativeType is the provider's type path: "system/init",
	// "stream_event/content_block_delta/text_delta", "item.completed/reasoning".
	NativeType  string      `json:"nativeType"`
	Disposition Disposition `json:"disposition"`
	Reason      string      `json:"reason,omitempty"`
	// UnknownFields lists top-level (or type-relevant nested) field names
	// present in the line that the normalizer has never seen for this type.
	UnknownFields []string `json:"unknownFields,omitempty"`
}

// Normalizer is what every provider normalizer implements: bytes in, events
// out, one native line at a time, with state kept between lines. It does no
// I/O and reads no clock.
//
// Line handles one complete native line (without its newline). ref is the
// caller's identifier for the line (a line number, or the capture sequence
// number) and is put into Cause of every event derived from it. The returned
// slice is owned by the caller.
//
// End tells the normalizer the stream is over; it returns what the end
// implies (an incomplete result when no terminal event was seen, the flush
// of a half-open block).
//
// Classify reports how Line treats a line, without changing any state.
type Normalizer interface {
	Line(ref int64, line []byte) []Event
	End() []Event
	Classify(line []byte) Classification
}

// ValidLiner is a Normalizer that can be handed a line the caller has
// already validated as JSON, so that it does not validate it a second
// time: a replay of a capture reads native_in payloads that the envelope
// reader checked with gjson.ValidBytes. Every provider normalizer of evcap
// implements it.
//
// LineValid gives the same events as Line for a line that is valid JSON
// (gjson.ValidBytes); for any other line its events are unspecified, so
// call Line for lines that were not checked (raw output, the decoded
// lines of non-JSON records).
type ValidLiner interface {
	Normalizer
	LineValid(ref int64, line []byte) []Event
}

// OwnedLiner is a ValidLiner that can also be handed a validated line the
// caller gives away: the caller never changes, reuses or frees its bytes
// (a fresh copy made for this call), so the normalizer may keep strings
// that point into the line instead of copying the line first, as it must
// for Line and LineValid, whose line the caller may overwrite as soon as
// the call returns. source.Native.Normalize hands lines over this way.
//
// LineOwned gives the same events as LineValid.
type OwnedLiner interface {
	ValidLiner
	LineOwned(ref int64, line []byte) []Event
}

// InPlaceLiner is a ValidLiner whose Line and LineValid read the line in
// place and copy only the strings their events and state keep (see
// Event.Detach), instead of copying the whole line first: a caller that
// reuses its line buffers (as Line's contract allows) then does less work
// than one that makes a fresh copy of each line for LineOwned, and touches
// no fresh memory. source.Native.Normalize checks for it.
type InPlaceLiner interface {
	ValidLiner
	// ReadsLinesInPlace marks the interface; it does nothing.
	ReadsLinesInPlace()
}

// SlabUser is a Normalizer that can take the memory of its most common
// events (text deltas and their causes) from a Slab its caller provides:
// from UseSlab(s) on, until the next UseSlab, the events it returns may
// live in s, so they are the caller's only until the caller resets s. A
// pipeline that is done with a batch's events then reuses the memory
// instead of the normalizer taking fresh memory for every event.
// UseSlab(nil) goes back to the normalizer's own Slab, which is never
// reset.
type SlabUser interface {
	Normalizer
	UseSlab(s *Slab)
}
