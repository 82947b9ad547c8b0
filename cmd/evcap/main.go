// Command evcap captures, sanitizes and replays the event streams of
// coding-agent CLIs. See README.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := interruptContext()
	code := make(chan int, 1)
	go func() { code <- run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr) }()
	select {
	case c := <-code:
		stop()
		os.Exit(c)
	case <-ctx.Done():
	}
	// A signal came. Commands stop on their own at the next record; one
	// blocked in a read that no context reaches (a FIFO whose writer is
	// silent, a terminal) is not waited for beyond stopGrace: its
	// temporary files are removed and the process exits as interrupted.
	select {
	case c := <-code:
		os.Exit(c)
	case <-time.After(stopGrace):
		removeTemps()
		fmt.Fprintln(os.Stderr, "evcap:", context.Cause(ctx))
		os.Exit(interruptCode(ctx))
	}
}

// stopGrace is how long main waits, after SIGINT or SIGTERM, for the
// command to return by itself before it exits anyway. evcap promises to
// stop within 100 ms of the signal.
const stopGrace = 50 * time.Millisecond

// interruptContext is cancelled by the first SIGINT or SIGTERM, with an
// interrupted cause naming the signal (interruptCode turns it into the
// exit status). A second signal ends the process at once.
func interruptContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig, ok := <-ch
		if !ok {
			return
		}
		cancel(interrupted{sig: sig})
		if sig, ok = <-ch; ok {
			removeTemps()
			os.Exit(128 + signum(sig))
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel(nil) }
}
