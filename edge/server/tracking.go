package server

import (
	"encoding/json"
	"strconv"

	"github.com/valyala/fasthttp"

	"storefront/contract"
	"storefront/edge/catalog"
	"storefront/edge/tracking"
)

// Refusals of a tracking call's body (Korean, like every refusal a browser gets).
const msgBadJSON = "요청 형식(JSON)이 올바르지 않습니다."

var msgBatchSize = "이벤트는 한 번에 1~" + strconv.Itoa(tracking.MaxBatch) + "개까지 보낼 수 있습니다."

// serveTracking handles POST tracking/page-view and tracking/events; false for
// other POSTs (they go to a writer).
func (s *Server) serveTracking(ctx *fasthttp.RequestCtx, rest []byte) bool {
	switch string(rest) {
	case "tracking/page-view":
		var c tracking.ClientEvent
		if err := json.Unmarshal(ctx.PostBody(), &c); err != nil {
			s.m.tracked.WithLabelValues("bad").Inc()
			s.writeError(ctx, 400, msgBadJSON)
			return true
		}
		c.Type = contract.EvPageView
		s.track(ctx, []tracking.ClientEvent{c}, false)
	case "tracking/events":
		var body struct {
			Events []tracking.ClientEvent `json:"events"`
		}
		if err := json.Unmarshal(ctx.PostBody(), &body); err != nil {
			s.m.tracked.WithLabelValues("bad").Inc()
			s.writeError(ctx, 400, msgBadJSON)
			return true
		}
		if len(body.Events) == 0 || len(body.Events) > tracking.MaxBatch {
			s.m.tracked.WithLabelValues("bad").Inc()
			s.writeError(ctx, 400, msgBatchSize)
			return true
		}
		s.track(ctx, body.Events, true)
	default:
		return false
	}
	return true
}

func (s *Server) track(ctx *fasthttp.RequestCtx, cs []tracking.ClientEvent, batch bool) {
	sid := tracking.Session(ctx)
	evs := make([]*contract.TrackedEvent, 0, len(cs))
	var fresh, retried []*contract.TrackedEvent
	for i := range cs {
		ev, err := s.tracker.Build(ctx, &cs[i], sid)
		if err != nil {
			s.m.tracked.WithLabelValues("bad").Inc()
			s.fail(ctx, err)
			return
		}
		if ev.Type == contract.EvSearch {
			s.markTopHit(ev)
		}
		evs = append(evs, ev)
		if cs[i].Retry {
			retried = append(retried, ev)
		} else {
			fresh = append(fresh, ev)
		}
	}
	if err := s.tracker.Publish(ctx, fresh, retried); err != nil {
		s.m.tracked.WithLabelValues("unavailable").Add(float64(len(evs)))
		s.log.Warn("tracking publish failed", "err", err)
		s.writeError(ctx, 503, "이벤트를 저장하지 못했습니다. 잠시 후 다시 시도해 주세요.")
		return
	}
	s.m.tracked.WithLabelValues("ok").Add(float64(len(evs)))
	if !batch {
		s.writeJSON(ctx, 200, struct {
			Header  contract.Header `json:"header"`
			EventID string          `json:"event_id"`
		}{contract.Header{Code: 200}, evs[0].ID})
		return
	}
	ids := make([]string, len(evs))
	for i, e := range evs {
		ids[i] = e.ID
	}
	s.writeJSON(ctx, 200, struct {
		Header   contract.Header `json:"header"`
		EventIDs []string        `json:"event_ids"`
	}{contract.Header{Code: 200}, ids})
}

// HeaderAppVersion carries the app version in app web views.
const HeaderAppVersion = tracking.HeaderAppVersion

// markTopHit records the keyword's top hit for an audience that sees every
// work: analytics keeps a keyword whose top hit is an adult work from the
// audiences that cannot see adult works (contract.PopularSearch.Adult). The
// edge sets it, so a page cannot mark a keyword harmless.
func (s *Server) markTopHit(ev *contract.TrackedEvent) {
	q := ev.Props[contract.PropSearchQuery]
	s.store.Read(s.cfg.Now(), false, func(v *catalog.View) {
		if ms, _ := v.SearchPage(q, "", 0, 1); len(ms) > 0 {
			ev.Props[contract.PropSearchTop] = ms[0].P.PID
		}
	})
}
