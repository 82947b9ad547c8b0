package envelope

import (
	"io"
	"time"

	"github.com/oklog/ulid/v2"
)

// NewCaptureID returns a ULID for a capture made at t, with randomness from
// entropy (crypto/rand.Reader in production, a seeded reader in tests, so
// ids are reproducible there).
func NewCaptureID(t time.Time, entropy io.Reader) (string, error) {
	id, err := ulid.New(ulid.Timestamp(t), entropy)
	if err != nil {
		return "", err
	}
	return id.String(), nil
}

// ValidCaptureID reports whether s is a well-formed ULID.
func ValidCaptureID(s string) bool {
	_, err := ulid.ParseStrict(s)
	return err == nil
}
