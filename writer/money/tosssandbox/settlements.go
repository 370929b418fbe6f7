package tosssandbox

import (
	"net/http"
	"sort"
	"strconv"
	"time"
)

type settlement struct {
	MID            string `json:"mId"`
	PaymentKey     string `json:"paymentKey"`
	TransactionKey string `json:"transactionKey"`
	OrderID        string `json:"orderId"`
	Currency       string `json:"currency"`
	Method         string `json:"method"`
	Amount         int64  `json:"amount"`
	InterestFree   int64  `json:"interestFreeAmount"`
	Fees           []fee  `json:"fees"`
	SupplyAmount   int64  `json:"supplyAmount"`
	Vat            int64  `json:"vat"`
	PayOutAmount   int64  `json:"payOutAmount"`
	ApprovedAt     string `json:"approvedAt"`
	SoldDate       string `json:"soldDate"`
	PaidOutDate    string `json:"paidOutDate"`
	Cancel         any    `json:"cancel"`
	at             time.Time
}

type fee struct {
	Type string `json:"type"`
	Fee  int64  `json:"fee"`
}

// settlements lists approvals and cancels sold (in Korean days) between
// startDate and endDate inclusive, oldest first, paged.
func (s *Sandbox) settlements(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	start, err1 := time.ParseInLocation(time.DateOnly, q.Get("startDate"), kst)
	end, err2 := time.ParseInLocation(time.DateOnly, q.Get("endDate"), kst)
	page, size := 1, 100
	var err3, err4 error
	if v := q.Get("page"); v != "" {
		page, err3 = strconv.Atoi(v)
	}
	if v := q.Get("size"); v != "" {
		size, err4 = strconv.Atoi(v)
	}
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || end.Before(start) || page < 1 || size < 1 || size > 10000 {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST", "잘못된 요청입니다.")
		return
	}
	end = end.AddDate(0, 0, 1)
	in := func(t time.Time) bool { return !t.Before(start) && t.Before(end) }
	s.mu.Lock()
	var rows []settlement
	for _, p := range s.payments {
		if p.ApprovedAt == nil {
			continue
		}
		row := func(tx string, amount int64, at time.Time, c any) settlement {
			f := amount * 3 / 100 // the sandbox's card fee: 3 %
			return settlement{MID: p.MID, PaymentKey: p.PaymentKey, TransactionKey: tx, OrderID: p.OrderID, Currency: "KRW",
				Method: p.Method, Amount: amount, Fees: []fee{{Type: "BASE", Fee: f}}, SupplyAmount: amount * 10 / 11,
				Vat: amount - amount*10/11, PayOutAmount: amount - f, ApprovedAt: *p.ApprovedAt,
				SoldDate: at.In(kst).Format(time.DateOnly), PaidOutDate: at.In(kst).AddDate(0, 0, 2).Format(time.DateOnly), Cancel: c, at: at}
		}
		if in(p.approved) {
			first := *p.LastTransactionKey
			if len(p.Cancels) > 0 {
				first = "approval-" + p.PaymentKey
			}
			rows = append(rows, row(first, p.TotalAmount, p.approved, nil))
		}
		for _, c := range p.Cancels {
			if in(c.at) {
				rows = append(rows, row(c.TransactionKey, -c.CancelAmount, c.at,
					map[string]any{"cancelAmount": c.CancelAmount, "cancelReason": c.CancelReason, "canceledAt": c.CanceledAt}))
			}
		}
	}
	s.mu.Unlock()
	sort.Slice(rows, func(i, j int) bool {
		if !rows[i].at.Equal(rows[j].at) {
			return rows[i].at.Before(rows[j].at)
		}
		return rows[i].TransactionKey < rows[j].TransactionKey
	})
	from := min((page-1)*size, len(rows))
	writeJSON(w, http.StatusOK, append([]settlement{}, rows[from:min(from+size, len(rows))]...))
}
