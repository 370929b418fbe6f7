package testenv

import (
	"bytes"
	"sync"
)

// LogBuffer is a log sink that a service's goroutines and the test share:
// slog.New(slog.NewTextHandler(&buf, nil)), then buf.String().
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is everything written so far.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
