package ingest

import (
	"errors"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
)

type deadRow struct {
	subject    string
	seq        uint64
	deliveries uint64
	err        string
	payload    string
}

type batch struct {
	// queryID names the last events insert sent, so a retry can wait until the
	// server has finished it (a cancelled client does not stop a server-side insert).
	queryID string
	// sent is the block of the last failed attempt (BlockDedup): the retry
	// sends it again as it is.
	sent    *columns
	rows    []row
	recheck []bool // per row: delivered before, may already be stored
	ack     []jetstream.Msg
	term    []jetstream.Msg
	dead    []deadRow
	dups    int
}

func (in *Ingester) parse(msgs []jetstream.Msg) *batch {
	b := &batch{rows: make([]row, 0, len(msgs)), recheck: make([]bool, 0, len(msgs))}
	seen := make(map[string]struct{}, len(msgs))
	var good []contract.TrackedEvent
	var bad [][]byte
	var errs []error
	for _, m := range msgs {
		var seq, delivered uint64
		if md, err := m.Metadata(); err == nil {
			seq, delivered = md.Sequence.Stream, md.NumDelivered
		}
		// A message delivered again may have been stored before its ack was
		// lost; a retried one may be stored under another message.
		recheck := delivered > 1 || m.Headers().Get(contract.HeaderEventRetry) != ""
		good, bad, errs = good[:0], bad[:0], errs[:0]
		contract.EachEventLine(m.Data(), func(line []byte) {
			var ev contract.TrackedEvent
			err := contract.DecodeEvent(line, &ev)
			if err == nil {
				err = ev.Validate()
			}
			if err != nil {
				bad, errs = append(bad, line), append(errs, err)
				return
			}
			good = append(good, ev)
		})
		if len(good) == 0 {
			// Nothing usable: the whole message is parked, once.
			err := errors.New("empty message")
			if len(errs) > 0 {
				err = errs[0]
			}
			b.dead = append(b.dead, deadRow{subject: m.Subject(), seq: seq, deliveries: delivered, err: err.Error(), payload: clip(m.Data())})
			b.term = append(b.term, m)
			continue
		}
		// A bundle with a bad line parks that line and keeps the rest.
		for i, line := range bad {
			b.dead = append(b.dead, deadRow{subject: m.Subject(), seq: seq, deliveries: delivered, err: errs[i].Error(), payload: clip(line)})
		}
		b.ack = append(b.ack, m)
		for _, ev := range good {
			if _, dup := seen[ev.ID]; dup {
				b.dups++
				continue
			}
			seen[ev.ID] = struct{}{}
			b.rows = append(b.rows, row{ev: ev, subject: m.Subject(), seq: seq})
			b.recheck = append(b.recheck, recheck)
		}
	}
	return b
}

// clip bounds a dead letter's payload.
func clip(p []byte) string {
	if len(p) > 64<<10 {
		p = p[:64<<10]
	}
	return string(p)
}
