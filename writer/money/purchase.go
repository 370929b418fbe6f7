package money

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"storefront/writer/httpapi"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
)

// Buy types of the seed (§3): R rental, B buy, T ticket (a rental paid with a
// ticket instead of money).
const (
	BuyRent   = "R"
	BuyBuy    = "B"
	BuyTicket = "T"
)

// MaxVols bounds the volumes of one purchase call.
const MaxVols = 1000

// MaxVolNo is the highest volume number the catalog accepts (writer/catalog);
// a larger one is bad input, not a database error.
const MaxVolNo = 100_000

// PurchaseRequest buys, rents or uses tickets on volumes of a work. All takes
// every released volume still to buy (buy-all / rent-all); on a special-price
// set, buying all costs the set price (the work's discount applied).
type PurchaseRequest struct {
	PID     string `json:"pid"`
	Vols    []int  `json:"vols,omitempty"`
	BuyType string `json:"buyType"`
	All     bool   `json:"all,omitempty"`
	// Channel decides which money is spent (seed §6); it comes from the
	// X-Channel header, not the body.
	Channel string `json:"channel,omitempty"`
}

// PurchaseResult is the answer of a purchase.
type PurchaseResult struct {
	Header      contract.Header `json:"header"`
	PurchaseID  int64           `json:"purchaseId"`
	PID         string          `json:"pid"`
	BuyType     string          `json:"buyType"`
	Vols        []int           `json:"vols"`
	Amount      int64           `json:"amount"`
	Paid        Paid            `json:"paid"`
	Tickets     int             `json:"tickets,omitempty"`
	AuthEndDate *time.Time      `json:"authEndDate,omitempty"`
	Wallet      Wallet          `json:"wallet"`
}

func (r *PurchaseRequest) validate() error {
	if !contract.ValidKeyID(r.PID) {
		return httpapi.BadRequest("작품 ID(pid)가 필요합니다.")
	}
	switch r.BuyType {
	case BuyRent, BuyBuy, BuyTicket:
	default:
		return httpapi.BadRequest("구매 방식(buyType)은 R, B, T 중 하나여야 합니다.")
	}
	if r.All {
		if len(r.Vols) > 0 {
			return httpapi.BadRequest("전체 구매(all)에는 회차(vols)를 함께 지정할 수 없습니다.")
		}
		return nil
	}
	if len(r.Vols) == 0 {
		return httpapi.BadRequest("구매할 회차(vols)를 선택해 주세요.")
	}
	if len(r.Vols) > MaxVols {
		return httpapi.BadRequest("한 번에 최대 %d개 회차까지 구매할 수 있습니다.", MaxVols)
	}
	seen := make(map[int]bool, len(r.Vols))
	for _, v := range r.Vols {
		if v <= 0 || v > MaxVolNo {
			return httpapi.BadRequest("회차 번호는 1부터 %d까지입니다.", MaxVolNo)
		}
		if seen[v] {
			return httpapi.BadRequest("같은 회차(%d화)가 두 번 들어 있습니다.", v)
		}
		seen[v] = true
	}
	return nil
}

// loadVols is the volumes a purchase needs from the catalog (nil = all).
func loadVols(r PurchaseRequest) []int {
	if r.All {
		return nil
	}
	return r.Vols
}

// sellable checks that a work may be sold now.
func sellable(p *Product) error {
	if p.Hidden {
		return ErrNoProduct
	}
	if p.ServiceCode != 0 && p.ServiceCode != http.StatusOK {
		return httpapi.Errorf(http.StatusForbidden, "지금은 구매할 수 없는 작품입니다.")
	}
	return nil
}

// entitlement is a row of entitlements.
type entitlement struct {
	Kind      string
	ExpiresAt *time.Time
}

func (e entitlement) active(now time.Time) bool {
	return e.Kind == BuyBuy || (e.ExpiresAt != nil && e.ExpiresAt.After(now))
}

func loadEntitlements(ctx context.Context, q Querier, uid int64, pid string) (map[int]entitlement, error) {
	rows, err := q.Query(ctx, `SELECT vol, kind, expires_at FROM entitlements WHERE uid = $1 AND pid = $2`, uid, pid)
	if err != nil {
		return nil, fmt.Errorf("load entitlements %d/%s: %w", uid, pid, err)
	}
	defer rows.Close()
	out := map[int]entitlement{}
	for rows.Next() {
		var vol int
		var e entitlement
		if err := rows.Scan(&vol, &e.Kind, &e.ExpiresAt); err != nil {
			return nil, fmt.Errorf("load entitlements %d/%s: %w", uid, pid, err)
		}
		out[vol] = e
	}
	return out, rows.Err()
}

// grant writes entitlements of kind B (exp nil) or R for vols. A buy replaces a
// rental; a rental only replaces an expired rental (callers skip the rest).
func grant(ctx context.Context, tx Execer, uid int64, pid string, vols []int, kind, source string, exp *time.Time, now time.Time) error {
	_, err := tx.Exec(ctx, `INSERT INTO entitlements (uid, pid, vol, kind, source, expires_at, created_at)
		SELECT $1, $2, v, $3, $4, $5, $6 FROM unnest($7::int[]) AS v
		ON CONFLICT (uid, pid, vol) DO UPDATE
		SET kind = EXCLUDED.kind, source = EXCLUDED.source, expires_at = EXCLUDED.expires_at, created_at = EXCLUDED.created_at`,
		uid, pid, kind, source, exp, now, vols)
	if err != nil {
		return fmt.Errorf("grant %s %s%v to %d: %w", kind, pid, vols[:min(len(vols), 3)], uid, err)
	}
	return nil
}

// grantNew writes entitlements of vols that the member has none of (a
// duplicate fails the transaction).
func grantNew(ctx context.Context, tx Execer, uid int64, pid string, vols []int, kind, source string, exp *time.Time, now time.Time) error {
	_, err := tx.Exec(ctx, `INSERT INTO entitlements (uid, pid, vol, kind, source, expires_at, created_at)
		SELECT $1, $2, v, $3, $4, $5, $6 FROM unnest($7::int[]) AS v`,
		uid, pid, kind, source, exp, now, vols)
	if err != nil {
		return fmt.Errorf("grant %s %s%v to %d: %w", kind, pid, vols[:min(len(vols), 3)], uid, err)
	}
	return nil
}

func (s *Service) rentTerm(p *Product) time.Duration {
	d := p.RentDays
	if d <= 0 {
		d = s.cfg.DefaultRentDays
	}
	return time.Duration(d) * 24 * time.Hour
}

// Purchase buys, rents or redeems tickets, once per idempotency key.
func (s *Service) Purchase(ctx context.Context, uid int64, key string, req PurchaseRequest) (Answer, error) {
	if err := req.validate(); err != nil {
		return Answer{}, err
	}
	if err := validKey(key); err != nil {
		return Answer{}, err
	}
	var err error
	// The member's clock: the writer's, moved by a dev-clock offset only
	// under -dev-clock (writer/devclock), so that an end-to-end test can buy
	// an episode after its scheduled release without waiting for it.
	reads := &purchaseReads{s: s, req: req, uid: uid, pid: req.PID, vols: loadVols(req), now: s.clock(ctx)}
	if _, ok := s.cfg.Catalog.(PGCatalog); !ok {
		// Another catalog cannot join the wallet lock's round trip.
		if reads.p, err = s.cfg.Catalog.Product(ctx, s.pool, req.PID, reads.vols); err != nil {
			return Answer{}, err
		}
	}
	return s.oncePre(ctx, uid, key, "purchase", req, reads, func(tx pgx.Tx, b *pgx.Batch, w *Wallet) (any, error) {
		return s.purchase(ctx, tx, b, w, reads.p, req, reads, reads.now)
	})
}

// purchase decides everything under the wallet lock and queues the writes in b.
func (s *Service) purchase(ctx context.Context, tx pgx.Tx, b *pgx.Batch, w *Wallet, p *Product, req PurchaseRequest, reads *purchaseReads, now time.Time) (*PurchaseResult, error) {
	uid, ents, id := w.UID, reads.ents, reads.id
	var err error
	var cands []Volume
	if req.All {
		cands = p.Released(now)
	} else {
		for _, no := range req.Vols {
			v, _ := p.Volume(no, now)
			cands = append(cands, v)
		}
	}
	var vols []int
	var amount int64
	early := 0
	for _, v := range cands {
		e, has := ents[v.No]
		if reads.early[v.No] {
			// Sold early (checkEarly allowed only B): the early price,
			// even for a volume that will be free once out.
			if has && e.Kind == BuyBuy {
				continue
			}
			amount += p.EarlyPrice
			vols = append(vols, v.No)
			early++
			continue
		}
		if v.IsFree {
			continue
		}
		switch req.BuyType {
		case BuyBuy:
			if has && e.Kind == BuyBuy {
				continue
			}
			amount += v.BuyPrice
		default:
			if (req.BuyType == BuyRent && v.RentPrice <= 0) || (has && e.active(now)) {
				continue
			}
			amount += v.RentPrice
		}
		vols = append(vols, v.No)
	}
	if len(vols) == 0 {
		return nil, httpapi.Errorf(http.StatusConflict, "구매할 회차가 없습니다. 무료이거나 이미 구매한 회차입니다.")
	}
	if req.All && req.BuyType == BuyBuy && p.IsSpecialPriceSet && p.DiscountRate > 0 {
		amount = amount * int64(100-p.DiscountRate) / 100
	}
	res := &PurchaseResult{Header: contract.Header{Code: 200}, PurchaseID: id, PID: p.PID, BuyType: req.BuyType, Vols: vols}
	var exp *time.Time
	if req.BuyType != BuyBuy {
		e := now.Add(s.rentTerm(p))
		exp = &e
		res.AuthEndDate = exp
	}
	if req.BuyType == BuyTicket {
		n, err := useTickets(ctx, tx, uid, p, len(vols), now)
		if err != nil {
			return nil, err
		}
		res.Tickets = n
		amount = 0
	}
	res.Amount = amount
	reason := "purchase"
	evType := contract.EvPurchase
	if req.BuyType != BuyBuy {
		reason, evType = "rental", contract.EvRental
	}
	money := MoneyFor(req.Channel)
	q := queue{b}
	res.Paid, err = spend(ctx, q, w, money, amount, reason, "purchase:"+strconv.FormatInt(id, 10), now)
	if err != nil {
		return nil, err
	}
	b.Queue(`INSERT INTO purchases (id, uid, pid, buy_type, vols, amount, paid, expires_at, created_at)
		OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		id, uid, p.PID, req.BuyType, vols, amount, res.Paid, exp, now)
	kind := BuyRent
	if req.BuyType == BuyBuy {
		kind = BuyBuy
	}
	// Under the wallet lock the entitlements read with it are all there
	// are (every grant takes the lock): without one to replace, a plain
	// insert, which PostgreSQL writes without the speculative insertion of
	// ON CONFLICT (one WAL record and one index probe less per volume).
	replaces := false
	for _, v := range vols {
		if _, has := ents[v]; has {
			replaces = true
		}
	}
	if replaces {
		err = grant(ctx, q, uid, p.PID, vols, kind, "money", exp, now)
	} else {
		err = grantNew(ctx, q, uid, p.PID, vols, kind, "money", exp, now)
	}
	if err != nil {
		return nil, err
	}
	ev := contract.TrackedEvent{Type: evType, Time: now, UID: uidString(uid), PID: p.PID, Section: p.Section,
		Amount: amount, Money: money, Channel: req.Channel,
		Props: map[string]string{"buyType": req.BuyType, "vols": strconv.Itoa(len(vols)),
			"purchaseId": strconv.FormatInt(id, 10)}}
	if early > 0 {
		ev.Props["early"] = strconv.Itoa(early)
	}
	if len(vols) == 1 {
		ev.Vol = vols[0]
	}
	if req.BuyType == BuyTicket {
		ev.Money = "ticket"
	}
	if err := s.cfg.Outbox.Enqueue(ctx, q, ev); err != nil {
		return nil, err
	}
	if res.Paid[Blue] > 0 && reads.armed != nil && w.Blue < *reads.armed {
		// The balance went down under an armed threshold: a top-up starts
		// (the statement checks armed again, so one per crossing).
		queueThresholdTopup(b, uid, w.Blue, now)
	}
	res.Wallet = *w
	return res, nil
}

// PurchaseRecord is a history row.
type PurchaseRecord struct {
	ID        int64      `json:"id"`
	PID       string     `json:"pid"`
	BuyType   string     `json:"buyType"`
	Vols      []int      `json:"vols"`
	Amount    int64      `json:"amount"`
	Paid      Paid       `json:"paid"`
	ExpiresAt *time.Time `json:"authEndDate,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
}

// History lists purchases (rental=false: buys; rental=true: rentals, ticket
// and coupon unlocks), newest first, before id.
func (s *Service) History(ctx context.Context, uid int64, rental bool, before int64, limit int) ([]PurchaseRecord, error) {
	if before <= 0 {
		before = 1 << 62
	}
	types := []string{BuyBuy}
	if rental {
		types = []string{BuyRent, BuyTicket, "W", "C", "P", "J"}
	}
	rows, err := s.pool.Query(ctx, `SELECT id, pid, buy_type, vols, amount, paid, expires_at, created_at
		FROM purchases WHERE uid = $1 AND buy_type = ANY($2) AND id < $3 ORDER BY id DESC LIMIT $4`,
		uid, types, before, limit)
	if err != nil {
		return nil, fmt.Errorf("list purchases %d: %w", uid, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (PurchaseRecord, error) {
		var p PurchaseRecord
		err := r.Scan(&p.ID, &p.PID, &p.BuyType, &p.Vols, &p.Amount, &p.Paid, &p.ExpiresAt, &p.CreatedAt)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("list purchases %d: %w", uid, err)
	}
	return out, nil
}

// VolAuth is one volume of the seed's volList.
type VolAuth struct {
	No         int        `json:"no"`
	RentalInfo RentalInfo `json:"rentalInfo"`
	BuyInfo    BuyInfo    `json:"buyInfo"`
}

// RentalInfo is volList[].rentalInfo.
type RentalInfo struct {
	IsAuth      bool       `json:"isAuth"`
	AuthEndDate *time.Time `json:"authEndDate,omitempty"`
	PriceOrg    int64      `json:"price_org"`
	Price       int64      `json:"price"`
}

// BuyInfo is volList[].buyInfo.
type BuyInfo struct {
	IsAuth   bool  `json:"isAuth"`
	Price    int64 `json:"price"`
	PriceOrg int64 `json:"price_org"`
}

// SalesStatus is the user's part of a work's detail: what is owned or rented,
// what is left to buy (seed §4: buying reduces left-over amount, price and count).
type SalesStatus struct {
	Header        contract.Header `json:"header"`
	PID           string          `json:"pid"`
	IsBuy         bool            `json:"isBuy"`
	IsRental      bool            `json:"isRental"`
	LastAuthType  string          `json:"lastAuthType,omitempty"`
	BuyLeftPrice  int64           `json:"buyLeftPrice"`
	BuyLeftCount  int             `json:"buyLeftCount"`
	RentLeftPrice int64           `json:"rentLeftPrice"`
	RentLeftCount int             `json:"rentLeftCount"`
	VolList       []VolAuth       `json:"volList"`
	// RecentViewVol is the member's recentViewVol (seed §3): the volume they
	// were reading (isContinue, "이어보기"), else the first. It is here, in the
	// member call the detail page makes anyway, so the edge's cached detail
	// stays the same for everyone.
	RecentViewVol *contract.RecentViewVol `json:"recentViewVol"`
	// IsAlarm is whether the member's new-volume alarm for the work is on:
	// the edge's cached detail says false for everyone, so without it a
	// reloaded page would show the alarm off and a click would turn it on again.
	IsAlarm bool `json:"isAlarm"`
	// EarlyList is the volumes sold early now (isAuth: bought) and any
	// other unreleased one the member bought early, in release order;
	// they are in no left-over count until released.
	EarlyList []EarlyAuth `json:"earlyList"`
}

// EarlyAuth is one early volume of SalesStatus.EarlyList.
type EarlyAuth struct {
	No        int       `json:"no"`
	ReleaseAt time.Time `json:"releaseAt"`
	Price     int64     `json:"price"`
	IsAuth    bool      `json:"isAuth"`
}

// Status returns the user's sales status of pid.
func (s *Service) Status(ctx context.Context, uid int64, pid string) (*SalesStatus, error) {
	if !contract.ValidKeyID(pid) {
		return nil, httpapi.BadRequest("작품 ID(pid)가 필요합니다.")
	}
	p, err := s.cfg.Catalog.Product(ctx, s.pool, pid, nil)
	if err != nil {
		return nil, err
	}
	if p.Hidden {
		return nil, ErrNoProduct
	}
	ents, err := loadEntitlements(ctx, s.pool, uid, pid)
	if err != nil {
		return nil, err
	}
	var last string
	var lastAt time.Time
	err = s.pool.QueryRow(ctx, `SELECT buy_type, created_at FROM purchases WHERE uid = $1 AND pid = $2 ORDER BY id DESC LIMIT 1`,
		uid, pid).Scan(&last, &lastAt)
	if err != nil && err != pgx.ErrNoRows {
		return nil, fmt.Errorf("last purchase %d/%s: %w", uid, pid, err)
	}
	now := s.now()
	st := &SalesStatus{Header: contract.Header{Code: 200}, PID: pid, VolList: []VolAuth{}}
	switch last {
	case "":
	case BuyBuy:
		st.LastAuthType = BuyBuy
	default:
		st.LastAuthType = BuyRent
	}
	for _, v := range p.Released(now) {
		e, has := ents[v.No]
		va := VolAuth{No: v.No,
			RentalInfo: RentalInfo{PriceOrg: v.RentOrg, Price: v.RentPrice},
			BuyInfo:    BuyInfo{Price: v.BuyPrice, PriceOrg: v.BuyPriceOrg}}
		bought := has && e.Kind == BuyBuy
		rented := has && e.Kind == BuyRent && e.active(now)
		va.BuyInfo.IsAuth = bought
		va.RentalInfo.IsAuth = rented
		if rented {
			va.RentalInfo.AuthEndDate = e.ExpiresAt
		}
		st.IsBuy = st.IsBuy || bought
		st.IsRental = st.IsRental || rented
		if !v.IsFree && !bought {
			st.BuyLeftPrice += v.BuyPrice
			st.BuyLeftCount++
			if v.RentPrice > 0 && !rented {
				st.RentLeftPrice += v.RentPrice
				st.RentLeftCount++
			}
		}
		st.VolList = append(st.VolList, va)
	}
	if p.IsSpecialPriceSet && p.DiscountRate > 0 {
		st.BuyLeftPrice = st.BuyLeftPrice * int64(100-p.DiscountRate) / 100
	}
	slices.SortFunc(st.VolList, func(a, b VolAuth) int { return a.No - b.No })
	st.EarlyList = []EarlyAuth{}
	early := p.earlyVolumes(now)
	for _, v := range early {
		e, has := ents[v.No]
		st.EarlyList = append(st.EarlyList, EarlyAuth{No: v.No, ReleaseAt: v.ReleaseAt, Price: p.EarlyPrice,
			IsAuth: has && e.Kind == BuyBuy})
	}
	for _, v := range p.Volumes {
		if e, has := ents[v.No]; has && e.Kind == BuyBuy && v.ReleaseAt.After(now) &&
			!slices.ContainsFunc(early, func(x Volume) bool { return x.No == v.No }) {
			st.EarlyList = append(st.EarlyList, EarlyAuth{No: v.No, ReleaseAt: v.ReleaseAt, IsAuth: true})
		}
	}
	if st.RecentViewVol, err = s.recentViewVol(ctx, uid, p, ents, now); err != nil {
		return nil, err
	}
	err = s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM alarms WHERE uid = $1 AND pid = $2 AND is_on)`, uid, pid).Scan(&st.IsAlarm)
	if err != nil {
		return nil, fmt.Errorf("alarm state %d/%s: %w", uid, pid, err)
	}
	return st, nil
}

// recentViewVol picks the volume the member was reading last (the viewer's
// reading place or the recently viewed list, whichever is newer) when it is
// still released, else the first released volume; nil when none is.
func (s *Service) recentViewVol(ctx context.Context, uid int64, p *Product, ents map[int]entitlement, now time.Time) (*contract.RecentViewVol, error) {
	released := p.Released(now)
	if len(released) == 0 {
		return nil, nil
	}
	var last int
	err := s.pool.QueryRow(ctx, `SELECT vol FROM (
			SELECT vol, updated_at AS at FROM reading_places WHERE uid = $1 AND pid = $2
			UNION ALL SELECT vol, viewed_at FROM recent_views WHERE uid = $1 AND pid = $2 AND vol > 0
		) x ORDER BY at DESC LIMIT 1`, uid, p.PID).Scan(&last)
	if err != nil && err != pgx.ErrNoRows {
		return nil, fmt.Errorf("last viewed volume %d/%s: %w", uid, p.PID, err)
	}
	v, continued := released[0], false
	for _, r := range released {
		if r.No == last {
			v, continued = r, true
		}
	}
	var title string
	if err := s.pool.QueryRow(ctx, `SELECT title FROM volumes WHERE pid = $1 AND no = $2`, p.PID, v.No).Scan(&title); err != nil && err != pgx.ErrNoRows {
		return nil, fmt.Errorf("volume title %s/%d: %w", p.PID, v.No, err)
	}
	e, has := ents[v.No]
	cv := contract.Volume{No: v.No, Title: title, IsFree: v.IsFree, PreviewPages: v.Preview}
	rv := contract.ViewVol(&cv, continued, true, has && e.active(now))
	return &rv, nil
}

// DownloadAuth is the answer of /protocol/api/v-1/product/download-auth.asp.
type DownloadAuth struct {
	Header       contract.Header `json:"header"`
	PID          string          `json:"pid"`
	Vol          int             `json:"vol"`
	IsAuth       bool            `json:"isAuth"`
	AuthType     string          `json:"authType,omitempty"` // B, R or F (free)
	AuthEndDate  *time.Time      `json:"authEndDate,omitempty"`
	Token        string          `json:"token,omitempty"`
	TokenExpire  *time.Time      `json:"tokenExpire,omitempty"`
	ContentBase  string          `json:"contentBase"`
	Pages        int             `json:"pages"`
	PreviewPages int             `json:"previewPages"`
}

// Authorize answers whether uid may read pid/vol fully, with a content token
// for the edge. channel is the request's X-Channel: an adult work is refused
// (403) to the teen version, free volumes included.
func (s *Service) Authorize(ctx context.Context, uid int64, pid string, vol int, channel string) (*DownloadAuth, error) {
	if !contract.ValidKeyID(pid) {
		return nil, httpapi.BadRequest("작품 ID(pid)가 필요합니다.")
	}
	if vol <= 0 || vol > MaxVolNo {
		return nil, httpapi.BadRequest("회차 번호(vol)는 1부터 %d까지입니다.", MaxVolNo)
	}
	p, err := s.cfg.Catalog.Product(ctx, s.pool, pid, []int{vol})
	if err != nil {
		return nil, err
	}
	now := s.now()
	if p.Hidden {
		return nil, httpapi.Errorf(http.StatusNotFound, "회차를 찾을 수 없습니다. (%d화)", vol)
	}
	if err := s.forAudience(ctx, uid, p, channel, now); err != nil {
		return nil, err
	}
	v, released := p.Volume(vol, now)
	if !released && v.No == 0 {
		return nil, errNoVolume(vol)
	}
	a := &DownloadAuth{Header: contract.Header{Code: 200}, PID: pid, Vol: vol,
		ContentBase: contract.ContentBase(pid, vol), Pages: v.Pages, PreviewPages: v.Preview}
	if p.ServiceCode != 0 && p.ServiceCode != http.StatusOK {
		// Service or payment off: no full view (seed §4).
		return a, nil
	}
	if !released {
		// Before its release only an early buyer reads it: a B
		// entitlement of an unreleased volume comes from nothing else.
		var kind string
		err := s.pool.QueryRow(ctx, `SELECT kind FROM entitlements WHERE uid = $1 AND pid = $2 AND vol = $3`,
			uid, pid, vol).Scan(&kind)
		if err != nil && err != pgx.ErrNoRows {
			return nil, fmt.Errorf("load entitlement %d/%s/%d: %w", uid, pid, vol, err)
		}
		if kind != BuyBuy {
			return nil, unreleased(ctx, s.pool, p, vol, now)
		}
		// No free preview before the release: every page needs the token.
		a.PreviewPages = 0
		a.IsAuth, a.AuthType = true, BuyBuy
	} else if v.IsFree {
		a.IsAuth, a.AuthType = true, "F"
	} else {
		var e entitlement
		err := s.pool.QueryRow(ctx, `SELECT kind, expires_at FROM entitlements WHERE uid = $1 AND pid = $2 AND vol = $3`,
			uid, pid, vol).Scan(&e.Kind, &e.ExpiresAt)
		if err != nil && err != pgx.ErrNoRows {
			return nil, fmt.Errorf("load entitlement %d/%s/%d: %w", uid, pid, vol, err)
		}
		if err == nil && e.active(now) {
			a.IsAuth, a.AuthType, a.AuthEndDate = true, e.Kind, e.ExpiresAt
		}
	}
	if a.IsAuth {
		exp := now.Add(s.cfg.ContentTTL)
		if a.AuthEndDate != nil && a.AuthEndDate.Before(exp) {
			exp = *a.AuthEndDate
		}
		a.Token = contract.SignContent([]byte(s.cfg.ContentSecret), pid, vol, exp)
		a.TokenExpire = &exp
	}
	return a, nil
}
