package main

import (
	"context"
	"fmt"
	"time"

	"github.com/evcap/evcap/export"
	"github.com/evcap/evcap/record"
)

// startLiveExport wires record --otlp: the run's spans go to endpoint as
// they end, through a bounded queue, so the agent is never held back. A
// collector that is down costs a warning at the end and a note in
// capture.end, nothing else: the capture and the exit status are the same
// as without --otlp. The returned function ends the trace and flushes
// (waiting at most 3 s); call it once the recording is done. With no
// endpoint it does nothing.
func startLiveExport(ctx context.Context, s streams, endpoint string, opts *record.Options) func() {
	if endpoint == "" {
		return func() {}
	}
	sender, err := export.NewSender(ctx, export.SenderOptions{Endpoint: endpoint, Version: version, Live: true})
	if err != nil {
		fmt.Fprintf(s.err, "evcap: warning: --otlp %s: %v; recording without export\n", endpoint, err)
		return func() {}
	}
	live := export.NewLive(sender, endpoint, export.Options{})
	opts.Observer = live
	return func() {
		flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
		defer cancel()
		if err := live.Close(flush); err != nil {
			fmt.Fprintf(s.err, "evcap: warning: --otlp %s: %v (the capture is complete; evcap export can send it again)\n", endpoint, err)
		}
	}
}
