package provider

// InputMatcher follows one replay of a run in which the integration wrote
// to the CLI's stdin (Claude's --input-format stream-json): evcap play
// stands in for the CLI and checks each line the integration writes now
// against the one it wrote in the recorded run, and hands back the CLI's
// recorded answers under the ids the integration uses now. It keeps what
// it learns of those ids, so it serves one replay.
type InputMatcher interface {
	// Match says how got, the line the integration wrote now, differs
	// from want, the line it wrote in the recorded run, or "" when they
	// match. Ids the integration makes up on each run (its request ids)
	// are not compared; Match remembers them for Live. redacted says that
	// want had secrets or paths replaced, so its free text cannot be
	// compared.
	Match(want, got []byte, redacted bool) string
	// Live returns a recorded line of the CLI's, rewritten to answer
	// under the ids the integration used now (a copy), or line itself
	// when it names none of them.
	Live(line []byte) []byte
}
