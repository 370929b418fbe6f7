package server

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"storefront/contract"
	"storefront/writer/staff"
)

// answerAnalystChecks answers analytics' question before each report
// (contract.AnalystCheckSubject): is this staff session, or this member
// session with this uid, an analyst's right now? The answer comes from the
// same rows the writer's own guards read, so a logout, a role change or a
// removal is seen by the next report. One writer of the queue group answers.
func (s *Server) answerAnalystChecks(st *staff.Service) error {
	_, err := s.nc.QueueSubscribe(contract.AnalystCheckSubject, "writer", func(m *nats.Msg) {
		var q contract.AnalystCheck
		var a contract.AnalystAnswer
		if err := json.Unmarshal(m.Data, &q); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			a = s.checkAnalyst(ctx, st, q)
			cancel()
		}
		b, _ := json.Marshal(a)
		if err := m.Respond(b); err != nil {
			s.log.Warn("analyst check: cannot answer", "err", err)
		}
	})
	if err != nil {
		return fmt.Errorf("subscribe %s: %w", contract.AnalystCheckSubject, err)
	}
	return nil
}

func (s *Server) checkAnalyst(ctx context.Context, st *staff.Service, q contract.AnalystCheck) contract.AnalystAnswer {
	var (
		who string
		ok  bool
		err error
	)
	switch {
	case q.Staff != "":
		who, ok, err = st.Analyst(ctx, q.Staff)
	case q.Session != "":
		who = q.UID
		ok, err = s.auth.AnalystSession(ctx, q.Session, q.UID)
	}
	if err != nil {
		s.log.Error("analyst check", "err", err)
		return contract.AnalystAnswer{Error: "unavailable"}
	}
	if !ok {
		return contract.AnalystAnswer{}
	}
	return contract.AnalystAnswer{OK: true, Who: who}
}
