package httpapi

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter bounds the rate of calls per key (a client address, an account, a
// member). It is per writer node: with N nodes a caller gets at most N times
// the rate, which is enough to stop password guessing and card testing.
type Limiter struct {
	mu    sync.Mutex
	every time.Duration
	burst int
	m     map[string]*rate.Limiter
}

// NewLimiter allows perMinute calls per key and minute, in bursts of as many.
func NewLimiter(perMinute int) *Limiter {
	if perMinute <= 0 {
		perMinute = 1
	}
	return &Limiter{every: time.Minute / time.Duration(perMinute), burst: perMinute, m: map[string]*rate.Limiter{}}
}

// Allow takes one call of key at now and reports whether it is within the rate.
func (l *Limiter) Allow(key string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.m) > 100000 {
		// Forgetting everybody is cheaper than tracking age; the window is a minute.
		l.m = map[string]*rate.Limiter{}
	}
	lim := l.m[key]
	if lim == nil {
		lim = rate.NewLimiter(rate.Every(l.every), l.burst)
		l.m[key] = lim
	}
	return lim.AllowN(now, 1)
}
