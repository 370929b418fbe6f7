package tosssandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Delivery is one webhook and its last attempt.
type Delivery struct {
	Status string // the payment status reported
	Code   int    // HTTP status of the last attempt, 0 if it never answered
	Body   []byte
}

// notify queues a webhook for p's current status. Caller holds s.mu.
func (s *Sandbox) notify(p *payment) {
	body, _ := json.Marshal(map[string]any{
		"eventType": "PAYMENT_STATUS_CHANGED",
		"createdAt": s.cfg.Now().In(kst).Format("2006-01-02T15:04:05.000000"),
		"data":      p,
	})
	d := &Delivery{Status: p.Status, Body: body}
	s.deliveries = append(s.deliveries, d)
	s.send(d)
}

// send delivers d in the background, retrying with backoff until a 200 or Close.
func (s *Sandbox) send(d *Delivery) {
	target := s.cfg.WebhookURL
	if target == "" {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		backoff := 50 * time.Millisecond
		for attempt := 0; attempt < 8; attempt++ {
			code := s.post(target, d.Body)
			s.mu.Lock()
			d.Code = code
			s.mu.Unlock()
			if code == http.StatusOK {
				return
			}
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(4*backoff, 2*time.Second)
		}
	}()
}

func (s *Sandbox) post(target string, body []byte) int {
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.cfg.Client.Do(req)
	if err != nil {
		s.cfg.Log.Warn("payment sandbox: webhook failed", "err", err)
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// Deliveries returns a copy of every webhook queued so far, in order.
func (s *Sandbox) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Delivery, len(s.deliveries))
	for i, d := range s.deliveries {
		out[i] = *d
	}
	return out
}

// Redeliver sends webhook i (an index into Deliveries) again, as the
// gateway does when an answer was lost.
func (s *Sandbox) Redeliver(i int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < 0 || i >= len(s.deliveries) {
		return fmt.Errorf("no webhook %d", i)
	}
	s.send(s.deliveries[i])
	return nil
}

// Wait blocks until every queued delivery finished (acknowledged or given up).
func (s *Sandbox) Wait() { s.wg.Wait() }
