// Package chat renders an agent run as one chat message that is edited in
// place, the way chat bots show an agent at work: a first message
// "⏳ Working…", edits that show the tool being used ("🔧 Bash: ls -la") or
// an error, and a last edit that replaces it all with the final answer.
//
// A Message turns events into operations (Op: send or edit). Each event is
// handed over with the time it happened, so the rate limit (at most one
// edit per Options.Interval) runs on the caller's clock and replays of a
// capture give the same operations every time. Edits that come too soon
// are coalesced: only the latest waiting state is kept, and it goes out at
// the first event (or Tick) after the interval has passed. Partial text
// never causes an edit. The final answer is always delivered; if it comes
// too soon after the last edit, its Op is dated when the interval ends and
// a live driver waits until then.
//
// The operations are data: WriteJSONL prints them (for goldens and for
// `evcap render --format chat`), and a Delivery applies them to a Sink, the
// interface a real chat backend implements. The package has no network
// code and no backend; a Matrix sink lives elsewhere.
package chat
