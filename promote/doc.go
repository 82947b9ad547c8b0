// Package promote turns a capture into a fixture directory: fixture.json
// (the records that matter for replay, validated against the fixture
// schema) and goldens next to it (normalized events, terminal render, chat
// operations, render groups, legacy markers), so that a bad run becomes a
// regression test that go test replays.
//
// Promoting is deterministic: the same capture gives byte-identical files.
// Shrinking a capture first (promote --minimize) is package minimize's job.
//
// The package does not pick a normalizer by provider name (the caller
// passes one; cmd/evcap has the provider table) and does not decide what is
// secret: a Sanitize hook, when given, runs before anything is written.
package promote
