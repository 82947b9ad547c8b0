package corpustest

import (
	"os"
	"testing"
)

// Heavy skips a test that is too slow for the README's test command: under
// the race detector (go test -race ./...) and under -short. Such tests walk
// the whole corpus or stream tens of MB through the redactor in one
// goroutine: they check behaviour, not data races (lighter tests run the
// same code under -race), and under the race detector each costs a minute
// or more. .ci/after-heavy.sh finds every test that calls Heavy and runs it
// without the race detector, once per CI run. EVCAP_HEAVY=1 runs them
// anyway, also under -race.
//
// Call it as the first line of the test, on its own line: the CI script
// finds the tests by that line.
func Heavy(t testing.TB) {
	t.Helper()
	if os.Getenv("EVCAP_HEAVY") == "1" {
		return
	}
	switch {
	case raceEnabled:
		t.Skip("heavy under the race detector: .ci/after-heavy.sh runs it without it (EVCAP_HEAVY=1 runs it here)")
	case testing.Short():
		t.Skip("heavy: skipped with -short; .ci/after-heavy.sh runs it (EVCAP_HEAVY=1 runs it here)")
	}
}
