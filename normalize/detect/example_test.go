package detect_test

import (
	"fmt"

	"github.com/evcap/evcap/normalize/detect"
)

func ExampleDetect() {
	first := [][]byte{
		[]byte(`{"type":"thread.started","thread_id":"01a228c9-d381-7b30-b32b-fc213b270a0f"}`),
		[]byte(`{"type":"turn.started"}`),
	}
	m, ok := detect.Detect(first)
	fmt.Println(m.Provider, m.Format, ok)
	// Output: codex exec-json true
}
