package main

import (
	"os"
	"syscall"
)

// shimSignals are the console events a shim stand-in notices: Go reports
// Ctrl+C and Ctrl+Break as os.Interrupt and a console's close, logoff or
// shutdown as SIGTERM. The CLI, in the stand-in's console and process
// group, gets them itself (see record.Options.Transparent).
func shimSignals() []os.Signal {
	return []os.Signal{os.Interrupt, syscall.SIGTERM}
}

// dieBy returns at once: a Windows exit status never names a signal, so a
// recording never reports one (record.Result.Signal stays empty) and the
// stand-in exits with the CLI's exit status instead.
func dieBy(string) {}
