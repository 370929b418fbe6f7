// Package tracking is the edge's tracking intake: it validates what browsers
// send, enriches it into contract.TrackedEvent and publishes it to EVENTS
// (fresh events through a trackbundle.Bundler).
package tracking

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/valyala/fasthttp"

	"storefront/contract"
	"storefront/edge/proxy"
	"storefront/realip"
	"storefront/trackbundle"
)

// SessionCookie holds the tracking session id the edge hands out; the writer
// reads the same cookie for its business events (contract.Enrich).
const SessionCookie = contract.SessionCookie

// HeaderAppVersion carries the app's version in app web views.
const HeaderAppVersion = contract.HeaderAppVersion

// MaxBatch bounds the events of one batch call.
const MaxBatch = 100

// MaxPropKey and MaxPropValue bound each of an event's props (64 at most).
const (
	MaxPropKey   = 64
	MaxPropValue = 1024
)

// Tracker turns browser tracking calls into contract.TrackedEvents on the
// EVENTS stream and reports success only after JetStream acked every event.
type Tracker struct {
	JS             jetstream.JetStream
	Now            func() time.Time
	Salt           []byte
	AudienceSecret []byte
	Timeout        time.Duration
	// Bundler publishes fresh events.
	Bundler *trackbundle.Bundler
	// Trusted are the balancers in front of the edge: the IP hash is of the
	// reader's address they saw.
	Trusted realip.Trusted
}

// ClientEvent is what a browser may say about an event. Identity (uid) is not
// taken from the body: the session decides who the reader is.
type ClientEvent struct {
	// ID is the page's own id for the event. A page that re-sends a batch
	// (its answer was lost, or sendBeacon after a fetch) sends the same ids,
	// so the copies are dropped as duplicates end to end. Optional: the edge
	// makes one when it is missing.
	ID         string            `json:"id"`
	Type       string            `json:"type"`
	CurPageURL string            `json:"curPageUrl"`
	URL        string            `json:"url"`
	Route      string            `json:"route"`
	Referrer   string            `json:"referrer"`
	PID        string            `json:"pid"`
	Section    string            `json:"section"`
	GenreID    string            `json:"genreId"`
	Vol        int               `json:"vol"`
	Props      map[string]string `json:"props"`
	// Retry says the page sent this event before without seeing the answer
	// (frontend/app/shell/tracking.ts). It may be stored already: see
	// Tracker.Publish.
	Retry bool `json:"retry"`
}

// badRequest is an error the client caused, in the one client-error shape of
// every transport; msg is shown to the reader as it is: a short Korean
// sentence without anything the request carried.
func badRequest(msg string) error {
	return &contract.ClientError{Code: fasthttp.StatusBadRequest, Msg: msg}
}

// browserTypes are the event types browsers may send. Business events and the
// member tracking profile come only from the writer, which knows the member:
// a profile from a browser would be whatever the page claimed.
var browserTypes = map[string]bool{contract.EvPageView: true, contract.EvViewContent: true, contract.EvSearch: true}

// MaxSearchRunes bounds a search event's keyword, as the search call does.
const MaxSearchRunes = 50

// SearchKeyword is the form a searched keyword is counted in: lower case,
// spaces trimmed and runs of them made one, so "나 혼자" and " 나  혼자 " are
// one keyword; "" when nothing is left.
func SearchKeyword(q string) string {
	return strings.ToLower(strings.Join(strings.Fields(q), " "))
}

// Build validates c and enriches it into a TrackedEvent from the request.
func (t *Tracker) Build(ctx *fasthttp.RequestCtx, c *ClientEvent, sessionID string) (*contract.TrackedEvent, error) {
	if !browserTypes[c.Type] {
		return nil, badRequest("브라우저에서 보낼 수 없는 이벤트 유형입니다.")
	}
	u := c.URL
	if u == "" {
		u = c.CurPageURL
	}
	if c.Type == contract.EvPageView && u == "" {
		return nil, badRequest("필수 항목(curPageUrl)이 없습니다.")
	}
	if len(u) > 2048 || len(c.Referrer) > 2048 || len(c.Route) > 2048 || len(c.PID) > 128 || len(c.Section) > 32 ||
		len(c.GenreID) > 32 || len(c.Props) > 64 {
		return nil, badRequest("이벤트 항목이 너무 깁니다.")
	}
	if c.Type == contract.EvSearch {
		// Only the keyword is kept: the top hit is the edge's to add, and
		// nothing else a page says about a search is counted.
		q := SearchKeyword(c.Props[contract.PropSearchQuery])
		if q == "" || utf8.RuneCountInString(q) > MaxSearchRunes {
			return nil, badRequest("검색어는 1~50자로 입력해 주세요.")
		}
		c.Props = map[string]string{contract.PropSearchQuery: q}
	}
	// Every field is bounded, props too: one event stays far below the
	// stream's message limit and the analysts' rows stay rows.
	for k, v := range c.Props {
		if len(k) > MaxPropKey || len(v) > MaxPropValue {
			return nil, badRequest("이벤트 속성(props)이 너무 깁니다.")
		}
	}
	if c.PID != "" && !contract.ValidKeyID(c.PID) {
		return nil, badRequest("항목(pid)의 형식이 올바르지 않습니다.")
	}
	id := c.ID
	if id == "" {
		u, err := uuid.NewV7()
		if err != nil {
			return nil, fmt.Errorf("event id: %w", err)
		}
		id = u.String()
	} else if !ValidClientID(id) {
		return nil, badRequest("이벤트 ID는 16~64자의 영문, 숫자, -, _로 보내 주세요.")
	}
	// The writer enriches its business events with the same function from
	// the same headers, cookie and address (the proxy sends it this
	// ClientAddr), so both join in analytics.
	en := contract.Enrich(t.Salt, string(ctx.Request.Header.Peek(contract.HeaderChannel)),
		string(ctx.Request.Header.Peek(HeaderAppVersion)), proxy.ClientAddr(ctx, t.Trusted).String(),
		string(ctx.Request.Header.UserAgent()), sessionID)
	ev := &contract.TrackedEvent{
		V: contract.EventSchemaVersion, ID: id, Type: c.Type, Time: t.Now().UTC(),
		MemberType: "visitor",
		URL:        u, Route: c.Route, Referrer: c.Referrer, PID: c.PID, Section: c.Section, GenreID: c.GenreID, Vol: c.Vol,
		Props: c.Props,
	}
	en.Apply(ev)
	if ev.Referrer == "" {
		ev.Referrer = string(ctx.Request.Header.Referer())
	}
	if tok := ctx.Request.Header.Cookie(contract.AudienceCookie); len(tok) > 0 {
		if a, err := contract.VerifyAudience(t.AudienceSecret, string(tok), t.Now()); err == nil {
			ev.MemberType = "member"
			if a.AdultLevel == 2 || a.AdultLevel == 3 {
				ev.MemberType = "adult"
			}
		}
	}
	if err := ev.Validate(); err != nil {
		// err names the field in Go's words: the browser gets a sentence.
		return nil, badRequest("이벤트 형식이 올바르지 않습니다.")
	}
	return ev, nil
}

// ValidClientID reports whether a page's event id is acceptable: long enough
// to be random (a UUID), short enough for the dedup key. The rule is the
// session id's (16 to 64 of [A-Za-z0-9_-]): both are ids a page makes up.
func ValidClientID(id string) bool { return contract.ValidSessionID(id) }

// Session returns the request's tracking session id, handing out a new one
// (as a cookie on the answer) when it has none.
func Session(ctx *fasthttp.RequestCtx) string {
	if v := ctx.Request.Header.Cookie(SessionCookie); contract.ValidSessionID(string(v)) {
		return string(v)
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	c := fasthttp.AcquireCookie()
	defer fasthttp.ReleaseCookie(c)
	c.SetKey(SessionCookie)
	c.SetValue(id)
	c.SetPath("/")
	c.SetHTTPOnly(true)
	c.SetSameSite(fasthttp.CookieSameSiteLaxMode)
	ctx.Response.Header.SetCookie(c)
	return id
}

// Publish sends the events and returns once JetStream acked all of them.
// Fresh events (a page's first try) go by the Bundler, with those of other
// calls. Retried ones (a page sends them again: it never saw the answer, so
// they may be stored already) go one per message with Nats-Msg-Id = event id,
// so JetStream drops a second retry, and marked contract.HeaderEventRetry, so
// analytics checks them against what it stored before inserting.
func (t *Tracker) Publish(ctx context.Context, fresh, retried []*contract.TrackedEvent) error {
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	futures := make([]jetstream.PubAckFuture, 0, len(retried))
	for _, ev := range retried {
		// The stream keeps b until JetStream acks it: a fresh slice per event.
		b, err := ev.AppendJSON(make([]byte, 0, 512))
		if err != nil {
			return fmt.Errorf("encode event %s: %w", ev.ID, err)
		}
		m := nats.NewMsg(contract.TrackSubject(ev.Type))
		m.Data = b
		m.Header.Set(jetstream.MsgIDHeader, ev.ID)
		m.Header.Set(contract.HeaderEventRetry, "1")
		f, err := t.JS.PublishMsgAsync(m)
		if err != nil {
			return fmt.Errorf("publish event %s: %w", ev.ID, err)
		}
		futures = append(futures, f)
	}
	if len(fresh) > 0 {
		lines := make([]byte, 0, 512*len(fresh))
		for _, ev := range fresh {
			var err error
			if lines, err = contract.AppendEventLine(lines, ev); err != nil {
				return fmt.Errorf("encode event %s: %w", ev.ID, err)
			}
		}
		if err := t.Bundler.Publish(ctx, lines); err != nil {
			return err
		}
	}
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return fmt.Errorf("publish event: %w", err)
		case <-ctx.Done():
			return fmt.Errorf("publish events: no ack: %w", ctx.Err())
		}
	}
	return nil
}
