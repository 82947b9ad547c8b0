// Package minimize shrinks a recorded agent run to the fewest native lines
// that still make a failure happen, by delta debugging (Zeller's ddmin)
// over the native lines. A record derived from native lines (normalized_out,
// legacy_out) stays exactly when all the lines it came from stay, so a
// reduced run is one the integration could have recorded.
//
// What "fails" means is a Predicate. The package has three:
//
//   - ReplayFails: evcap's own replay of the run differs from what was
//     recorded, the same way (promote --minimize);
//   - ExecFails: the user's program, fed the run's native stdout, fails the
//     same way: the same exit status and, when there is a golden of its
//     output, the same first output line the golden does not hold
//     (minimize --exec);
//   - CommandFails: a command (go test ./pkg -run TestX) fails while the
//     reduced run is written over the file it reads (minimize --test).
//
// Reduction holds the whole run in memory (every subset is tried against
// it); the runs worth minimizing are small enough. The package does not
// run programs itself for ExecFails (the Runner does, e.g. replay's exec
// runner), decide where fixtures live, or sanitize anything.
package minimize
