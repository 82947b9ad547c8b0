package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// terminalWidth is the width in columns of the console window f shows, 0
// when f is no console.
func terminalWidth(f *os.File) int {
	var info windows.ConsoleScreenBufferInfo
	if windows.GetConsoleScreenBufferInfo(windows.Handle(f.Fd()), &info) != nil {
		return 0
	}
	return int(info.Window.Right-info.Window.Left) + 1
}
