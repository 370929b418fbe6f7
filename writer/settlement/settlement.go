// Package settlement is the providers' side of the money (issue 31 item 3,
// in part): provider contracts and the works they own, and the monthly
// settlement statement computed from the ledger, per work: gross sales,
// refunds, the app stores' and the payment gateway's fees, the provider's
// rate and the net owed to it, in integer won.
//
// Routes (under /admin/api/v1/, behind writer/staff's guard):
//
//	GET    providers                          contracts (operator)
//	PUT    providers/{id}                     create or change a contract {name, rateBp, from?} (operator, audited)
//	PUT    providers/{id}/works/{pid}         assign a work to the provider (operator, audited)
//	DELETE providers/{id}/works/{pid}         take it back (operator, audited)
//	GET    providers/{id}/works               the provider's works
//	GET    providers/{id}/settlement?month=   the month's statement
//	GET    providers/{id}/daily?month=        per work and KST day: sales, rentals, refunds
//
// The last three need the settlement permission: a provider account reads
// only its own provider's (403 for another's), operators and analysts any.
//
// What a statement counts (see README.md for the whole rule):
//
//   - Sales: the ledger rows of purchases and rentals (reason purchase or
//     rental, ref purchase:<id>) of the provider's works whose time falls in
//     the KST month, by money. Blue money came in through the payment
//     gateway, Android and iOS money through the app stores; mileage is
//     bonus money the store gave away: shown, never settled.
//   - Refunds: the part of a refund the reader had already spent (money_flags
//     store_refund_spent: an app store refund; charge_refund_spent: a card
//     charge refunded at the gateway's console) is charged back to the works
//     that money bought: the reader's spends of that money between the
//     refunded purchase or charge and the refund, newest first. A reversed
//     refund (cleared flag) gives it back in the month it was reversed.
//     Refunds of unspent money (charge_cancel, store_refund ledger rows)
//     never reached a work and are in no statement.
//   - Fees and shares per work line, each truncated to the won; the store
//     keeps the remainders. Totals are sums of the lines.
package settlement

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// KST is Korean time: months and days of statements are KST's (no daylight
// saving, so a fixed zone is exact and needs no time zone data).
var KST = time.FixedZone("KST", 9*60*60)

// Fees are the store's contracts with the app stores and the payment gateway,
// in basis points of the money a sale was paid with. They are applied to the
// month's sales net of refunds, since both stores give their commission back
// on a refund.
type Fees struct {
	// AppStoreBP: Google Play and the App Store keep 30 % of a consumable
	// in-app purchase (their standard rate). Nothing in writer/appmoney
	// records the commission (store_purchases holds the won the reader paid),
	// so it is applied here, to sales paid with Android or iOS money.
	AppStoreBP int64
	// GatewayBP: the payment gateway's card fee on blue money charges, 3.3 %
	// (a card rate of a Korean PG contract, VAT included). Applied to sales
	// paid with blue money.
	GatewayBP int64
}

// DefaultFees are the contracts in force.
var DefaultFees = Fees{AppStoreBP: 3000, GatewayBP: 330}

// Amounts are won by money.
type Amounts struct {
	Blue    int64 `json:"blue"`
	Android int64 `json:"android"`
	IOS     int64 `json:"ios"`
	Mileage int64 `json:"mileage"`
}

func (a *Amounts) add(money string, v int64) {
	switch money {
	case "blue":
		a.Blue += v
	case "android":
		a.Android += v
	case "ios":
		a.IOS += v
	case "mileage":
		a.Mileage += v
	}
}

func (a *Amounts) plus(b Amounts) {
	a.Blue += b.Blue
	a.Android += b.Android
	a.IOS += b.IOS
	a.Mileage += b.Mileage
}

// Line is one work's settlement for the month, or the statement's totals.
// For every line: Gross = Purchases + Rentals = Sales.Blue + Sales.Android +
// Sales.IOS, and Gross - RefundTotal = AppStoreFee + GatewayFee + Net +
// StoreShare, to the won.
type Line struct {
	PID           string  `json:"pid,omitempty"`
	Title         string  `json:"title,omitempty"`
	Sales         Amounts `json:"sales"`
	Purchases     int64   `json:"purchases"`
	Rentals       int64   `json:"rentals"`
	PurchaseCount int64   `json:"purchaseCount"`
	RentalCount   int64   `json:"rentalCount"`
	Gross         int64   `json:"gross"`
	Refunds       Amounts `json:"refunds"`
	RefundTotal   int64   `json:"refundTotal"`
	AppStoreFee   int64   `json:"appStoreFee"`
	GatewayFee    int64   `json:"gatewayFee"`
	// Base is what the rate is applied to: Gross - RefundTotal - fees.
	Base       int64 `json:"base"`
	Net        int64 `json:"net"`
	StoreShare int64 `json:"storeShare"`
}

// Statement is a provider's settlement of one KST month.
type Statement struct {
	ProviderID string    `json:"providerId"`
	Name       string    `json:"name"`
	Month      string    `json:"month"`
	From       time.Time `json:"from"`
	To         time.Time `json:"to"`
	RateBP     int64     `json:"rateBp"`
	AppStoreBP int64     `json:"appStoreFeeBp"`
	GatewayBP  int64     `json:"gatewayFeeBp"`
	Works      []Line    `json:"works"`
	Total      Line      `json:"total"`
}

// share is v × bp / 10000 truncated toward zero (Go's integer division):
// the one rounding rule of every fee and share, applied per work line.
func share(v, bp int64) int64 { return v * bp / 10000 }

// finish computes a line's derived amounts from its sales and refunds.
func (l *Line) finish(f Fees, rateBP int64) {
	l.Gross = l.Sales.Blue + l.Sales.Android + l.Sales.IOS
	l.RefundTotal = l.Refunds.Blue + l.Refunds.Android + l.Refunds.IOS
	l.AppStoreFee = share(l.Sales.Android+l.Sales.IOS-l.Refunds.Android-l.Refunds.IOS, f.AppStoreBP)
	l.GatewayFee = share(l.Sales.Blue-l.Refunds.Blue, f.GatewayBP)
	l.Base = l.Gross - l.RefundTotal - l.AppStoreFee - l.GatewayFee
	l.Net = share(l.Base, rateBP)
	l.StoreShare = l.Base - l.Net
}

func (l *Line) addTo(t *Line) {
	t.Sales.plus(l.Sales)
	t.Refunds.plus(l.Refunds)
	t.Purchases += l.Purchases
	t.Rentals += l.Rentals
	t.PurchaseCount += l.PurchaseCount
	t.RentalCount += l.RentalCount
	t.Gross += l.Gross
	t.RefundTotal += l.RefundTotal
	t.AppStoreFee += l.AppStoreFee
	t.GatewayFee += l.GatewayFee
	t.Base += l.Base
	t.Net += l.Net
	t.StoreShare += l.StoreShare
}

// MonthRange is the KST month "YYYY-MM" as [from, to).
func MonthRange(month string) (from, to time.Time, err error) {
	t, err := time.ParseInLocation("2006-01", month, KST)
	if err != nil || t.Format("2006-01") != month {
		return time.Time{}, time.Time{}, fmt.Errorf("month %q: want YYYY-MM", month)
	}
	return t, t.AddDate(0, 1, 0), nil
}

var errNoProvider = errors.New("no such provider")
var errNoRate = errors.New("no rate in force")

// Compute is the statement of provider id for the KST month.
func Compute(ctx context.Context, pool *pgxpool.Pool, fees Fees, id, month string) (*Statement, error) {
	from, to, err := MonthRange(month)
	if err != nil {
		return nil, err
	}
	st := &Statement{ProviderID: id, Month: month, From: from, To: to, AppStoreBP: fees.AppStoreBP, GatewayBP: fees.GatewayBP, Works: []Line{}}
	// One snapshot: sales, refunds and the works' owners are read at the
	// same moment, so the statement's parts agree with each other.
	err = pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT name FROM providers WHERE id = $1`, id).Scan(&st.Name); errors.Is(err, pgx.ErrNoRows) {
			return errNoProvider
		} else if err != nil {
			return fmt.Errorf("read provider %s: %w", id, err)
		}
		err := tx.QueryRow(ctx, `SELECT rate_bp FROM provider_rates WHERE provider_id = $1 AND from_month <= $2::date
			ORDER BY from_month DESC LIMIT 1`, id, from.Format("2006-01-02")).Scan(&st.RateBP)
		if errors.Is(err, pgx.ErrNoRows) {
			return errNoRate
		} else if err != nil {
			return fmt.Errorf("read rate of %s: %w", id, err)
		}
		lines := map[string]*Line{}
		rows, err := tx.Query(ctx, `SELECT w.pid, w.title FROM work_providers wp JOIN works w ON w.pid = wp.pid
			WHERE wp.provider_id = $1 ORDER BY w.pid`, id)
		if err != nil {
			return fmt.Errorf("read works of %s: %w", id, err)
		}
		var order []string
		for rows.Next() {
			var l Line
			if err := rows.Scan(&l.PID, &l.Title); err != nil {
				rows.Close()
				return fmt.Errorf("read works of %s: %w", id, err)
			}
			lines[l.PID] = &l
			order = append(order, l.PID)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read works of %s: %w", id, err)
		}
		sales, err := readSales(ctx, tx, id, from, to, false)
		if err != nil {
			return err
		}
		for _, s := range sales {
			l := lines[s.pid]
			if l == nil {
				continue
			}
			l.Sales.add(s.money, s.won)
			if s.money != "mileage" {
				if s.reason == "purchase" {
					l.Purchases += s.won
				} else {
					l.Rentals += s.won
				}
			}
		}
		counts, err := tx.Query(ctx, `SELECT p.pid, l.reason, count(DISTINCT p.id)
			FROM ledger l JOIN purchases p ON p.id = `+purchaseID+`
			JOIN work_providers wp ON wp.pid = p.pid AND wp.provider_id = $1
			WHERE l.reason IN ('purchase', 'rental') AND l.created_at >= $2 AND l.created_at < $3
			GROUP BY 1, 2`, id, from, to)
		if err != nil {
			return fmt.Errorf("count sales of %s: %w", id, err)
		}
		for counts.Next() {
			var pid, reason string
			var n int64
			if err := counts.Scan(&pid, &reason, &n); err != nil {
				counts.Close()
				return fmt.Errorf("count sales of %s: %w", id, err)
			}
			if l := lines[pid]; l != nil {
				if reason == "purchase" {
					l.PurchaseCount = n
				} else {
					l.RentalCount = n
				}
			}
		}
		counts.Close()
		if err := counts.Err(); err != nil {
			return fmt.Errorf("count sales of %s: %w", id, err)
		}
		backs, err := Chargebacks(ctx, tx, from, to)
		if err != nil {
			return err
		}
		for _, b := range backs {
			if l := lines[b.PID]; l != nil {
				l.Refunds.add(b.Money, b.Won)
			}
		}
		for _, pid := range order {
			l := lines[pid]
			l.finish(fees, st.RateBP)
			l.addTo(&st.Total)
			st.Works = append(st.Works, *l)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// purchaseID is the purchases row a ledger row of a purchase or rental pays
// for (ref purchase:<id>); NULL for other rows, whose refs are not numbers.
const purchaseID = `CASE WHEN l.reason IN ('purchase', 'rental') AND l.ref LIKE 'purchase:%' THEN split_part(l.ref, ':', 2)::bigint END`

type sale struct {
	pid, reason, money string
	day                string
	won                int64
}

// readSales sums the provider's sales in [from, to) by work, kind and money,
// and by KST day when byDay.
func readSales(ctx context.Context, tx pgx.Tx, id string, from, to time.Time, byDay bool) ([]sale, error) {
	day := `''`
	if byDay {
		// KST has no daylight saving: +9 hours on UTC is the KST date.
		day = `to_char((l.created_at AT TIME ZONE 'UTC') + interval '9 hours', 'YYYY-MM-DD')`
	}
	rows, err := tx.Query(ctx, `SELECT p.pid, l.reason, l.money, `+day+`, sum(-l.delta)
		FROM ledger l JOIN purchases p ON p.id = `+purchaseID+`
		JOIN work_providers wp ON wp.pid = p.pid AND wp.provider_id = $1
		WHERE l.reason IN ('purchase', 'rental') AND l.created_at >= $2 AND l.created_at < $3
		GROUP BY 1, 2, 3, 4`, id, from, to)
	if err != nil {
		return nil, fmt.Errorf("read sales of %s: %w", id, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (sale, error) {
		var s sale
		err := r.Scan(&s.pid, &s.reason, &s.money, &s.day, &s.won)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("read sales of %s: %w", id, err)
	}
	return out, nil
}

// Chargeback is a share of a refund of spent money charged back to a
// work (Won > 0), or given back when the store reversed its refund (Won < 0).
type Chargeback struct {
	PID   string // "" when the money bought no work (a jumping pass)
	Money string
	Won   int64
	At    time.Time
}

// flagsFrom joins each refund of spent money (money_flags) to what was
// refunded: an app store purchase (ref <store>:<transaction id>) or a card
// charge refunded at the gateway's console (ref charge:<order id>), by
// their primary keys.
const flagsFrom = `money_flags f
	LEFT JOIN store_purchases sp ON f.reason = 'store_refund_spent'
		AND sp.store = split_part(f.ref, ':', 1) AND sp.transaction_id = substr(f.ref, strpos(f.ref, ':') + 1)
	LEFT JOIN charges c ON f.reason = 'charge_refund_spent' AND c.order_id = substr(f.ref, strpos(f.ref, ':') + 1)`

// flagMoney is the money a refund of spent money took back.
const flagMoney = `coalesce(sp.money, c.money)`

type spend struct {
	at   time.Time
	pid  string
	left int64
}

type flag struct {
	id        int64
	amount    int64
	created   time.Time
	cleared   *time.Time
	bought    time.Time // the refunded store purchase's credit or charge's request
	allocated map[int]int64
}

// Chargebacks are the chargebacks and give-backs dated in [from, to), of
// every work. For each reader and money with a refund of spent money made or
// reversed in the window, the reader's whole history of that money is
// replayed, so an older refund's share is never charged twice.
func Chargebacks(ctx context.Context, tx pgx.Tx, from, to time.Time) ([]Chargeback, error) {
	rows, err := tx.Query(ctx, `SELECT DISTINCT f.uid, `+flagMoney+`
		FROM `+flagsFrom+`
		WHERE f.reason IN ('store_refund_spent', 'charge_refund_spent') AND `+flagMoney+` IS NOT NULL
		  AND ((f.created_at >= $1 AND f.created_at < $2) OR (f.cleared_at >= $1 AND f.cleared_at < $2))`, from, to)
	if err != nil {
		return nil, fmt.Errorf("read refunds of spent money: %w", err)
	}
	type key struct {
		uid   int64
		money string
	}
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (key, error) {
		var k key
		err := r.Scan(&k.uid, &k.money)
		return k, err
	})
	if err != nil {
		return nil, fmt.Errorf("read refunds of spent money: %w", err)
	}
	var out []Chargeback
	for _, k := range keys {
		b, err := replay(ctx, tx, k.uid, k.money)
		if err != nil {
			return nil, err
		}
		for _, c := range b {
			if !c.At.Before(from) && c.At.Before(to) {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// replay allocates every refund of spent money of one reader and money to the
// spends it took back, in time order: a refund to the spends between its
// store purchase's credit (or its charge's request) and the refund, newest first, up to what each spend has
// left; a reversal frees that refund's allocation again.
func replay(ctx context.Context, tx pgx.Tx, uid int64, money string) ([]Chargeback, error) {
	rows, err := tx.Query(ctx, `SELECT l.created_at, coalesce(p.pid, ''), -l.delta
		FROM ledger l LEFT JOIN purchases p ON p.id = `+purchaseID+`
		WHERE l.uid = $1 AND l.money = $2 AND l.delta < 0 AND l.reason NOT IN ('store_refund', 'charge_cancel')
		ORDER BY l.id`, uid, money)
	if err != nil {
		return nil, fmt.Errorf("read spends of %d: %w", uid, err)
	}
	spends, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (spend, error) {
		var s spend
		err := r.Scan(&s.at, &s.pid, &s.left)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("read spends of %d: %w", uid, err)
	}
	rows, err = tx.Query(ctx, `SELECT f.id, f.amount, f.created_at, f.cleared_at, coalesce(sp.created_at, c.created_at)
		FROM `+flagsFrom+`
		WHERE f.reason IN ('store_refund_spent', 'charge_refund_spent') AND f.uid = $1 AND `+flagMoney+` = $2 ORDER BY f.id`, uid, money)
	if err != nil {
		return nil, fmt.Errorf("read refunds of %d: %w", uid, err)
	}
	flags, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*flag, error) {
		f := &flag{allocated: map[int]int64{}}
		err := r.Scan(&f.id, &f.amount, &f.created, &f.cleared, &f.bought)
		return f, err
	})
	if err != nil {
		return nil, fmt.Errorf("read refunds of %d: %w", uid, err)
	}
	type event struct {
		at    time.Time
		f     *flag
		clear bool
	}
	var evs []event
	for _, f := range flags {
		evs = append(evs, event{at: f.created, f: f})
		if f.cleared != nil {
			evs = append(evs, event{at: *f.cleared, f: f, clear: true})
		}
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].at.Before(evs[j].at) })
	var out []Chargeback
	for _, e := range evs {
		if e.clear {
			for i, won := range e.f.allocated {
				spends[i].left += won
				out = append(out, Chargeback{PID: spends[i].pid, Money: money, Won: -won, At: e.at})
			}
			e.f.allocated = map[int]int64{}
			continue
		}
		need := e.f.amount
		for i := len(spends) - 1; i >= 0 && need > 0; i-- {
			s := &spends[i]
			if s.at.After(e.at) || s.at.Before(e.f.bought) || s.left == 0 {
				continue
			}
			won := min(need, s.left)
			s.left -= won
			need -= won
			e.f.allocated[i] += won
			out = append(out, Chargeback{PID: s.pid, Money: money, Won: won, At: e.at})
		}
		// What no spend covers stays unattributed: the store's loss, in no
		// provider's statement.
	}
	return out, nil
}

// Day is one work's sales of one KST day.
type Day struct {
	Day       string `json:"day"`
	PID       string `json:"pid"`
	Purchases int64  `json:"purchases"`
	Rentals   int64  `json:"rentals"`
	Mileage   int64  `json:"mileage"`
	Refunds   int64  `json:"refunds"`
	// PurchaseCount and RentalCount are the buys and rentals made that day
	// (purchases rows of type B and R, whatever paid them).
	PurchaseCount int64 `json:"purchaseCount"`
	RentalCount   int64 `json:"rentalCount"`
	// Readers are the distinct members who opened an episode of the work
	// that day by any unlock (buy, rental, ticket, wait-for-free, coupon,
	// pass): the writer's count of the work's readers. Free episodes need no
	// unlock and are not counted (their reads are analytics' events).
	Readers int64 `json:"readers"`
}

// Daily is the provider's sales of the KST month per work and day: paid
// purchases and rentals (won, mileage apart), refunds charged back, the
// number of buys and rentals, and the readers who unlocked an episode.
func Daily(ctx context.Context, pool *pgxpool.Pool, id, month string) ([]Day, error) {
	from, to, err := MonthRange(month)
	if err != nil {
		return nil, err
	}
	days := map[[2]string]*Day{}
	at := func(day, pid string) *Day {
		k := [2]string{day, pid}
		if days[k] == nil {
			days[k] = &Day{Day: day, PID: pid}
		}
		return days[k]
	}
	err = pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM providers WHERE id = $1`, id).Scan(&n); err != nil {
			return fmt.Errorf("read provider %s: %w", id, err)
		}
		if n == 0 {
			return errNoProvider
		}
		sales, err := readSales(ctx, tx, id, from, to, true)
		if err != nil {
			return err
		}
		for _, s := range sales {
			d := at(s.day, s.pid)
			switch {
			case s.money == "mileage":
				d.Mileage += s.won
			case s.reason == "purchase":
				d.Purchases += s.won
			default:
				d.Rentals += s.won
			}
		}
		rows, err := tx.Query(ctx, `SELECT p.pid, to_char((p.created_at AT TIME ZONE 'UTC') + interval '9 hours', 'YYYY-MM-DD'),
			count(*) FILTER (WHERE p.buy_type = 'B'), count(*) FILTER (WHERE p.buy_type = 'R'), count(DISTINCT p.uid)
			FROM purchases p JOIN work_providers wp ON wp.pid = p.pid AND wp.provider_id = $1
			WHERE p.created_at >= $2 AND p.created_at < $3 GROUP BY 1, 2`, id, from, to)
		if err != nil {
			return fmt.Errorf("read readers of %s: %w", id, err)
		}
		var pid, day string
		var buys, rents, readers int64
		if _, err := pgx.ForEachRow(rows, []any{&pid, &day, &buys, &rents, &readers}, func() error {
			d := at(day, pid)
			d.PurchaseCount, d.RentalCount, d.Readers = buys, rents, readers
			return nil
		}); err != nil {
			return fmt.Errorf("read readers of %s: %w", id, err)
		}
		backs, err := Chargebacks(ctx, tx, from, to)
		if err != nil {
			return err
		}
		owned := map[string]bool{}
		rows, err = tx.Query(ctx, `SELECT pid FROM work_providers WHERE provider_id = $1`, id)
		if err != nil {
			return fmt.Errorf("read works of %s: %w", id, err)
		}
		pids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("read works of %s: %w", id, err)
		}
		for _, p := range pids {
			owned[p] = true
		}
		for _, b := range backs {
			if owned[b.PID] && b.Money != "mileage" {
				at(b.At.In(KST).Format("2006-01-02"), b.PID).Refunds += b.Won
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]Day, 0, len(days))
	for _, d := range days {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Day != out[j].Day {
			return out[i].Day < out[j].Day
		}
		return out[i].PID < out[j].PID
	})
	return out, nil
}
