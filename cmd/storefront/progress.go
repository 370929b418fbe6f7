package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress draws a bar on a terminal once work has taken longer than after, so
// quick runs stay quiet.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	label   string
	start   time.Time
	after   time.Duration
	drawn   bool
	lastPct int
}

func newProgress(w io.Writer, label string, after time.Duration) *progress {
	return &progress{w: w, label: label, start: time.Now(), after: after, lastPct: -1}
}

// Update reports done of total.
func (p *progress) Update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if total <= 0 || time.Since(p.start) < p.after {
		return
	}
	pct := done * 100 / total
	if pct == p.lastPct {
		return
	}
	p.lastPct = pct
	p.drawn = true
	const width = 30
	fill := pct * width / 100
	fmt.Fprintf(p.w, "\r%s [%s%s] %3d%% (%d/%d)", p.label, strings.Repeat("#", fill), strings.Repeat(".", width-fill), pct, done, total)
}

// Done ends the bar's line if one was drawn.
func (p *progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}
