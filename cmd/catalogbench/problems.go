package main

import (
	"fmt"
	"sync"
)

// maxProblems bounds what a phase reports: a broken edge fails every
// request, and the first answers say why.
const maxProblems = 50

// problemLog collects a phase's functional problems from its workers.
type problemLog struct {
	mu    sync.Mutex
	items []string
}

func (l *problemLog) add(format string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.items) < maxProblems {
		l.items = append(l.items, fmt.Sprintf(format, a...))
	}
}

func (l *problemLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.items
}
