// chatbridge is an outside module, as an integrator would write one: its
// own Claude stream-json parser and chat renderer, tested from evcap
// fixtures with evcap's replay/replaytest helpers. The replace points at
// the evcap checkout it lives in; a real project would require a release.
module example.com/chatbridge

go 1.26.8

require github.com/evcap/evcap v0.0.0-00010101000000-000000000000

require (
	github.com/oklog/ulid/v2 v2.1.2 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/sergi/go-diff v1.4.0 // indirect
	github.com/tidwall/gjson v1.20.2 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)

replace github.com/evcap/evcap => ../../../..
