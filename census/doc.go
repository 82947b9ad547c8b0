// Package census is the drift report's model: it counts, per provider and
// CLI version, every native event type a normalizer classified (handled,
// ignored with a reason, or unknown) and the fields of each type the
// normalizer has never seen, and names what is unknown for a CI gate.
//
// It reads native lines through a small interface and takes the
// normalizer from the caller, so it opens no file and tells no provider:
// evcap census (cmd/evcap) does those. What the command's arguments mean
// (Inputs: a directory stands for its capture files) and how the report
// reads (Report.WriteTable, Unknown.String) live here, so an IDE backend
// or a CI runner can build and print the same report in-process. Its JSON
// form (the struct field order, every list sorted) is the output of evcap
// census --json.
package census
