package drills

import (
	"context"
	"sort"
	"sync"
	"time"
)

// load calls fn at a fixed rate until ctx ends or d passes: call i starts at
// start + i/rate. A call that is late (a busy machine) starts at once, so the
// number of calls is rate × d whatever the scheduler does, and no call waits
// for another: a server that hangs piles up requests as real clients would.
// Wait returns after every call has finished.
type load struct {
	wg   sync.WaitGroup
	done chan struct{}
	n    int
}

func startLoad(ctx context.Context, rate float64, d time.Duration, fn func(ctx context.Context, seq int)) *load {
	l := &load{done: make(chan struct{})}
	interval := time.Duration(float64(time.Second) / rate)
	total := int(d.Seconds() * rate)
	go func() {
		defer close(l.done)
		start := time.Now()
		for i := 0; i < total; i++ {
			at := start.Add(time.Duration(i) * interval)
			if wait := time.Until(at); wait > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait):
				}
			} else if ctx.Err() != nil {
				return
			}
			l.n++
			l.wg.Add(1)
			go func() {
				defer l.wg.Done()
				fn(ctx, i)
			}()
		}
	}()
	return l
}

// Wait waits until the schedule ended and every call returned; it is the
// number of calls made.
func (l *load) Wait() int {
	<-l.done
	l.wg.Wait()
	return l.n
}

// recorder collects outcomes from many goroutines.
type recorder[T any] struct {
	mu  sync.Mutex
	out []T
}

func (r *recorder[T]) add(v T) {
	r.mu.Lock()
	r.out = append(r.out, v)
	r.mu.Unlock()
}

// all returns the outcomes sorted by less.
func (r *recorder[T]) all(less func(a, b T) bool) []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]T(nil), r.out...)
	sort.Slice(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

// instant is when a fault was applied: between before and after (the signal
// and the wait for the process to be gone).
type instant struct{ before, after time.Time }

func mark(fn func()) instant {
	b := time.Now()
	fn()
	return instant{before: b, after: time.Now()}
}

// inFlight reports whether a call that ran from start to end was under way
// when the fault happened: started before the fault was complete and not
// finished before it began.
func (k instant) inFlight(start, end time.Time) bool {
	return start.Before(k.after) && end.After(k.before)
}

// sleepCtx sleeps d unless ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// whenBusy waits until busy reports a call under way (at most limit), so that
// a fault lands in the middle of one rather than between calls.
func whenBusy(ctx context.Context, busy func() int64, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for busy() == 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(200 * time.Microsecond)
	}
}
