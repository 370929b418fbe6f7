package money

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"storefront/contract"
)

// Kinds of difference between the gateway's settlements and the ledger.
const (
	DiffMissingInLedger  = "missing_in_ledger"  // the gateway settled money the ledger never moved
	DiffMissingAtGateway = "missing_at_gateway" // the ledger moved money the gateway did not settle
	DiffAmount           = "amount_mismatch"    // both moved money for the order, not the same
	DiffStatus           = "status_mismatch"    // the charge's status contradicts what the gateway settled
)

// Difference is one order whose money the two sides tell differently.
type Difference struct {
	Kind    string `json:"kind"`
	OrderID string `json:"orderId"`
	Gateway int64  `json:"gateway"` // net won settled that day (approvals - cancels)
	Ledger  int64  `json:"ledger"`  // net won the ledger moved that day for the order
	Detail  string `json:"detail,omitempty"`
}

// Reconciliation is the comparison of one Korean day.
type Reconciliation struct {
	Day          string       `json:"day"`
	Settlements  int          `json:"settlements"`
	GatewayTotal int64        `json:"gatewayTotal"`
	LedgerTotal  int64        `json:"ledgerTotal"`
	Differences  []Difference `json:"differences"`
}

// settlementPage is how many settlements are asked for at once.
const settlementPage = 1000

// Reconcile compares the gateway's settlement list of day (a Korean
// calendar day, the gateway's) with the ledger's charge and refund rows of
// the same day, reports every order whose money differs and stores the
// report (charge_reconciliations). Bonus mileage is ours, not the gateway's,
// and is left out.
func (s *Service) Reconcile(ctx context.Context, day time.Time) (Reconciliation, error) {
	if s.cfg.Gateway == nil {
		return Reconciliation{}, ErrNoGateway
	}
	y, m, d := day.In(contract.KST).Date()
	start := time.Date(y, m, d, 0, 0, 0, 0, contract.KST)
	rep := Reconciliation{Day: start.Format(time.DateOnly), Differences: []Difference{}}
	type side struct {
		net, canceled int64
		approved      bool
	}
	gw := map[string]*side{}
	for page := 1; ; page++ {
		rows, err := s.cfg.Gateway.Settlements(ctx, start, start, page, settlementPage)
		if err != nil {
			return rep, fmt.Errorf("settlements of %s page %d: %w", rep.Day, page, err)
		}
		for _, r := range rows {
			g := gw[r.OrderID]
			if g == nil {
				g = &side{}
				gw[r.OrderID] = g
			}
			g.net += r.Amount
			if r.Cancel != nil {
				g.canceled += r.Cancel.CancelAmount
			} else {
				g.approved = true
			}
			rep.GatewayTotal += r.Amount
		}
		rep.Settlements += len(rows)
		if len(rows) < settlementPage {
			break
		}
	}
	ledger := map[string]int64{}
	rows, err := s.pool.Query(ctx, `SELECT substr(ref, 8), sum(delta) FROM ledger
		WHERE ref LIKE 'charge:%' AND reason IN ('charge', 'charge_cancel') AND money <> 'mileage'
		AND created_at >= $1 AND created_at < $2 GROUP BY 1`, start, start.AddDate(0, 0, 1))
	if err != nil {
		return rep, fmt.Errorf("ledger of %s: %w", rep.Day, err)
	}
	for rows.Next() {
		var order string
		var sum int64
		if err := rows.Scan(&order, &sum); err != nil {
			rows.Close()
			return rep, fmt.Errorf("ledger of %s: %w", rep.Day, err)
		}
		ledger[order] = sum
		rep.LedgerTotal += sum
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return rep, fmt.Errorf("ledger of %s: %w", rep.Day, err)
	}
	orders := make([]string, 0, len(gw)+len(ledger))
	for o := range gw {
		orders = append(orders, o)
	}
	for o := range ledger {
		if gw[o] == nil {
			orders = append(orders, o)
		}
	}
	sort.Strings(orders)
	status := map[string]string{}
	if len(orders) > 0 {
		srows, err := s.pool.Query(ctx, `SELECT order_id, status FROM charges WHERE order_id = ANY($1)`, orders)
		if err != nil {
			return rep, fmt.Errorf("charges of %s: %w", rep.Day, err)
		}
		for srows.Next() {
			var o, st string
			if err := srows.Scan(&o, &st); err != nil {
				srows.Close()
				return rep, fmt.Errorf("charges of %s: %w", rep.Day, err)
			}
			status[o] = st
		}
		srows.Close()
		if err := srows.Err(); err != nil {
			return rep, fmt.Errorf("charges of %s: %w", rep.Day, err)
		}
	}
	for _, o := range orders {
		g := gw[o]
		l, inLedger := ledger[o]
		st := status[o]
		switch {
		case g == nil:
			rep.Differences = append(rep.Differences, Difference{Kind: DiffMissingAtGateway, OrderID: o, Ledger: l})
		case !inLedger:
			detail := "charge " + st
			if st == "" {
				detail = "no such order"
			}
			rep.Differences = append(rep.Differences, Difference{Kind: DiffMissingInLedger, OrderID: o, Gateway: g.net, Detail: detail})
		case g.net != l:
			rep.Differences = append(rep.Differences, Difference{Kind: DiffAmount, OrderID: o, Gateway: g.net, Ledger: l, Detail: "charge " + st})
		}
		if g == nil || st == "" {
			continue
		}
		var why []string
		if g.approved && (st == "requested" || st == "failed") {
			why = append(why, "the gateway settled an approval")
		}
		if g.canceled > 0 && st == "done" {
			why = append(why, "the gateway settled a refund")
		}
		if len(why) > 0 {
			rep.Differences = append(rep.Differences, Difference{Kind: DiffStatus, OrderID: o, Gateway: g.net, Ledger: l,
				Detail: "charge " + st + ": " + strings.Join(why, ", ")})
		}
	}
	diffs, err := json.Marshal(rep.Differences)
	if err != nil {
		return rep, fmt.Errorf("encode differences: %w", err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO charge_reconciliations (day, checked_at, settlements, differences)
		VALUES ($1, $2, $3, $4) ON CONFLICT (day) DO UPDATE SET checked_at = $2, settlements = $3, differences = $4`,
		rep.Day, s.now(), rep.Settlements, diffs); err != nil {
		return rep, fmt.Errorf("store reconciliation of %s: %w", rep.Day, err)
	}
	return rep, nil
}

// ReconcileDaily reconciles the previous Korean day at 01:00 KST every day
// (the gateway's settlement list of a day is complete by then) until ctx is
// done, logging every difference. A day that fails is tried again an hour
// later. Every writer node may run it: the report is stored per day.
func (s *Service) ReconcileDaily(ctx context.Context) {
	if s.cfg.Gateway == nil {
		return
	}
	for {
		now := s.now().In(contract.KST)
		next := time.Date(now.Year(), now.Month(), now.Day(), 1, 0, 0, 0, contract.KST)
		if !next.After(now) {
			next = next.AddDate(0, 0, 1)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(next.Sub(now)):
		}
		for {
			rep, err := s.Reconcile(ctx, next.AddDate(0, 0, -1))
			if err == nil {
				s.logReconciliation(rep)
				break
			}
			s.log.Error("reconciliation failed", "day", rep.Day, "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Hour):
			}
		}
	}
}

func (s *Service) logReconciliation(rep Reconciliation) {
	for _, d := range rep.Differences {
		s.log.Warn("reconciliation difference", "day", rep.Day, "kind", d.Kind, "order", d.OrderID,
			"gateway", d.Gateway, "ledger", d.Ledger, "detail", d.Detail)
	}
	s.log.Info("reconciliation", "day", rep.Day, "settlements", rep.Settlements, "gatewayTotal", rep.GatewayTotal,
		"ledgerTotal", rep.LedgerTotal, "differences", len(rep.Differences))
}
