package money

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"storefront/writer/httpapi"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
)

// The four moneys of a wallet, as named in the ledger and in business events.
const (
	Blue    = contract.MoneyBlue
	Android = contract.MoneyAndroid
	IOS     = contract.MoneyIOS
	Mileage = "mileage"
)

// MoneyFor is the money shown and spent on a channel: contract.MoneyFor, the
// rule the frontend is checked against too.
func MoneyFor(channel string) string { return contract.MoneyFor(channel) }

// Wallet is a user's balances.
type Wallet struct {
	UID           int64      `json:"-"`
	Blue          int64      `json:"bluemoney"`
	Android       int64      `json:"appmoney_a"`
	IOS           int64      `json:"appmoney_i"`
	Mileage       int64      `json:"blueMileage"`
	JoinBonusAt   *time.Time `json:"-"`
	FirstChargeAt *time.Time `json:"-"`
}

// Balance returns the balance of one money.
func (w *Wallet) Balance(money string) int64 {
	switch money {
	case Blue:
		return w.Blue
	case Android:
		return w.Android
	case IOS:
		return w.IOS
	case Mileage:
		return w.Mileage
	}
	return 0
}

func (w *Wallet) add(money string, d int64) {
	switch money {
	case Blue:
		w.Blue += d
	case Android:
		w.Android += d
	case IOS:
		w.IOS += d
	case Mileage:
		w.Mileage += d
	}
}

const walletCols = `uid, blue, android, ios, mileage, join_bonus_at, first_charge_at`

func scanWallet(row pgx.Row) (*Wallet, error) {
	var w Wallet
	err := row.Scan(&w.UID, &w.Blue, &w.Android, &w.IOS, &w.Mileage, &w.JoinBonusAt, &w.FirstChargeAt)
	return &w, err
}

// lockWallet returns the user's wallet locked for this transaction, creating it
// empty on first use. Every change of a user's money or coupons takes this lock
// first, which serialises them per user.
func lockWallet(ctx context.Context, tx pgx.Tx, uid int64) (*Wallet, error) {
	w, err := scanWallet(tx.QueryRow(ctx, `SELECT `+walletCols+` FROM wallets WHERE uid = $1 FOR UPDATE`, uid))
	if errors.Is(err, pgx.ErrNoRows) {
		if _, err := tx.Exec(ctx, `INSERT INTO wallets (uid) VALUES ($1) ON CONFLICT DO NOTHING`, uid); err != nil {
			return nil, fmt.Errorf("create wallet %d: %w", uid, err)
		}
		w, err = scanWallet(tx.QueryRow(ctx, `SELECT `+walletCols+` FROM wallets WHERE uid = $1 FOR UPDATE`, uid))
	}
	if err != nil {
		return nil, fmt.Errorf("lock wallet %d: %w", uid, err)
	}
	return w, nil
}

// post writes one ledger row; the ledger trigger applies it to the wallet.
func post(ctx context.Context, tx Execer, w *Wallet, money string, delta int64, reason, ref string, at time.Time) error {
	if delta == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx,
		`INSERT INTO ledger (uid, money, delta, reason, ref, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		w.UID, money, delta, reason, ref, at); err != nil {
		return fmt.Errorf("post %s %+d to %d: %w", money, delta, w.UID, err)
	}
	w.add(money, delta)
	return nil
}

// Paid tells how a price was paid: money name -> amount.
type Paid map[string]int64

// spend takes amount from the wallet: mileage first (it is bonus money and
// expires in the readers' minds first), then the channel's money.
func spend(ctx context.Context, tx Execer, w *Wallet, channelMoney string, amount int64, reason, ref string, at time.Time) (Paid, error) {
	paid := Paid{}
	if amount == 0 {
		return paid, nil
	}
	fromMileage := min(w.Mileage, amount)
	rest := amount - fromMileage
	if rest > w.Balance(channelMoney) {
		return nil, ErrInsufficient
	}
	if err := post(ctx, tx, w, Mileage, -fromMileage, reason, ref, at); err != nil {
		return nil, err
	}
	if err := post(ctx, tx, w, channelMoney, -rest, reason, ref, at); err != nil {
		return nil, err
	}
	if fromMileage > 0 {
		paid[Mileage] = fromMileage
	}
	if rest > 0 {
		paid[channelMoney] = rest
	}
	return paid, nil
}

// GetWallet returns the user's balances (an empty wallet when none exists).
func (s *Service) GetWallet(ctx context.Context, uid int64) (*Wallet, error) {
	w, err := scanWallet(s.pool.QueryRow(ctx, `SELECT `+walletCols+` FROM wallets WHERE uid = $1`, uid))
	if errors.Is(err, pgx.ErrNoRows) {
		return &Wallet{UID: uid}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load wallet %d: %w", uid, err)
	}
	return w, nil
}

// AutoPayment is the seed's auto_payment_info.
type AutoPayment struct {
	IsUse        bool   `json:"is_use"`
	Type         string `json:"type"`
	Money        int64  `json:"money"`
	TriggerValue int64  `json:"trigger_value"`
	// PausedReason says why a top-up failed and turned the setting off
	// (shown, never taken from a request; cleared when it is turned on).
	PausedReason string `json:"paused_reason,omitempty"`
}

// Auto-payment kinds (seed §3).
const (
	AutoPay      = "bluemoney-auto-payment"
	ScheduledPay = "bluemoney-scheduled-payment"
)

// Validate checks an auto-payment setting.
func (a *AutoPayment) Validate() error {
	switch a.Type {
	case AutoPay:
		if a.TriggerValue < 0 || a.TriggerValue > 1_000_000 {
			return httpapi.BadRequest("자동 충전 기준 잔액(trigger_value)은 0부터 1000000 사이여야 합니다.")
		}
	case ScheduledPay:
		if a.TriggerValue < 1 || a.TriggerValue > 28 {
			return httpapi.BadRequest("정기 충전일(trigger_value)은 1일부터 28일 사이여야 합니다.")
		}
	default:
		return httpapi.BadRequest("자동 충전 방식(type)은 %s, %s 중 하나여야 합니다.", AutoPay, ScheduledPay)
	}
	if a.Money < 1000 || a.Money > 1_000_000 || a.Money%100 != 0 {
		return httpapi.BadRequest("충전 금액은 1000원부터 1000000원까지 100원 단위로 정할 수 있습니다.")
	}
	return nil
}

// GetAutoPayment returns the setting (IsUse false when none).
func (s *Service) GetAutoPayment(ctx context.Context, uid int64) (AutoPayment, error) {
	var a AutoPayment
	err := s.pool.QueryRow(ctx, `SELECT is_use, type, money, trigger_value, paused_reason FROM auto_payments WHERE uid = $1`, uid).
		Scan(&a.IsUse, &a.Type, &a.Money, &a.TriggerValue, &a.PausedReason)
	if errors.Is(err, pgx.ErrNoRows) {
		return AutoPayment{}, nil
	}
	if err != nil {
		return a, fmt.Errorf("load auto payment %d: %w", uid, err)
	}
	return a, nil
}

// SetAutoPayment stores the setting. {is_use: false} alone turns an existing
// setting off and keeps its kind, amount and trigger for the next time.
func (s *Service) SetAutoPayment(ctx context.Context, uid int64, a AutoPayment) error {
	if a == (AutoPayment{}) {
		if _, err := s.pool.Exec(ctx, `UPDATE auto_payments SET is_use = false, updated_at = $2 WHERE uid = $1`, uid, s.now()); err != nil {
			return fmt.Errorf("turn off auto payment %d: %w", uid, err)
		}
		return nil
	}
	if a.PausedReason != "" {
		return httpapi.BadRequest("정지 사유(paused_reason)는 바꿀 수 없습니다.")
	}
	if err := a.Validate(); err != nil {
		return err
	}
	// Turning it on (again) re-arms a paused threshold and dates the
	// scheduled kind's first month; a top-up under way stays the only one.
	_, err := s.pool.Exec(ctx, `INSERT INTO auto_payments (uid, is_use, type, money, trigger_value, updated_at, enabled_at)
		VALUES ($1, $2::boolean, $3, $4, $5, $6::timestamptz, CASE WHEN $2::boolean THEN $6::timestamptz END)
		ON CONFLICT (uid) DO UPDATE SET is_use = $2, type = $3, money = $4, trigger_value = $5, updated_at = $6,
			enabled_at = CASE WHEN NOT $2 THEN auto_payments.enabled_at WHEN auto_payments.is_use THEN coalesce(auto_payments.enabled_at, $6) ELSE $6 END,
			topup_state = CASE WHEN auto_payments.topup_state = 'pending' THEN 'pending' WHEN $2 THEN 'armed' ELSE auto_payments.topup_state END,
			paused_reason = CASE WHEN $2 THEN '' ELSE auto_payments.paused_reason END`,
		uid, a.IsUse, a.Type, a.Money, a.TriggerValue, s.now())
	if err != nil {
		return fmt.Errorf("save auto payment %d: %w", uid, err)
	}
	return nil
}

// Bonus is a banner-backed bonus in the side info.
type Bonus struct {
	Valid  bool   `json:"valid"`
	ImgURL string `json:"img_url"`
}

// SideInfo is the money part of the seed's side info / user-get-info answer.
type SideInfo struct {
	Wallet
	// Shown is the money the channel shows and spends; ShownAmount its balance.
	Shown       string `json:"shownMoney"`
	ShownAmount int64  `json:"shownAmount"`
	// FirstChargeBonusPct is the bonus a first charge gets, in percent: the
	// charge page shows the bonus from it before the member pays.
	FirstChargeBonusPct int64       `json:"firstChargeBonusPct"`
	JoinBonus           Bonus       `json:"join_bonus"`
	FirstBill           Bonus       `json:"firstbill"`
	AutoPayment         AutoPayment `json:"auto_payment_info"`
	// Tickets left for comics and novels (flag_ticket_comic / flag_ticket_novel).
	ComicTickets int `json:"comicTickets"`
	NovelTickets int `json:"novelTickets"`
}

// SideInfo returns the money side info of uid on channel. The join-bonus and
// first-charge banners are hidden in the iOS app (seed §6).
func (s *Service) SideInfo(ctx context.Context, uid int64, channel string) (*SideInfo, error) {
	w, err := s.GetWallet(ctx, uid)
	if err != nil {
		return nil, err
	}
	ap, err := s.GetAutoPayment(ctx, uid)
	if err != nil {
		return nil, err
	}
	si := &SideInfo{Wallet: *w, Shown: MoneyFor(channel), AutoPayment: ap, FirstChargeBonusPct: s.cfg.FirstChargeBonusPct}
	si.ShownAmount = w.Balance(si.Shown)
	banners := contract.BonusBanners(channel)
	now := s.now()
	// The pictures are those of the running join and first-charge events
	// (uploaded and processed like every banner); none while none runs.
	var joinImg, firstImg string
	if err := s.pool.QueryRow(ctx, `SELECT
		coalesce((SELECT banner_url FROM events WHERE kind = $1 AND start_at <= $3 AND end_at > $3 ORDER BY eid DESC LIMIT 1), ''),
		coalesce((SELECT banner_url FROM events WHERE kind = $2 AND start_at <= $3 AND end_at > $3 ORDER BY eid DESC LIMIT 1), '')`,
		contract.EventJoin, contract.EventFirstCharge, now).Scan(&joinImg, &firstImg); err != nil {
		return nil, fmt.Errorf("bonus banners: %w", err)
	}
	si.JoinBonus = Bonus{Valid: banners && w.JoinBonusAt == nil, ImgURL: joinImg}
	si.FirstBill = Bonus{Valid: banners && w.FirstChargeAt == nil, ImgURL: firstImg}
	err = s.pool.QueryRow(ctx, `SELECT
		coalesce(sum(count - used_cnt) FILTER (WHERE section = 'CM'), 0),
		coalesce(sum(count - used_cnt) FILTER (WHERE section = 'EB'), 0)
		FROM coupon_grants WHERE uid = $1 AND kind = 'ticket' AND is_recv AND available_at <= $2 AND expires_at > $2`, uid, now).
		Scan(&si.ComicTickets, &si.NovelTickets)
	if err != nil {
		return nil, fmt.Errorf("count tickets %d: %w", uid, err)
	}
	return si, nil
}

// ClaimJoinBonus grants the join bonus (mileage) once per user.
func (s *Service) ClaimJoinBonus(ctx context.Context, uid int64) (*Wallet, error) {
	var out *Wallet
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		w, err := lockWallet(ctx, tx, uid)
		if err != nil {
			return err
		}
		if w.JoinBonusAt != nil {
			return httpapi.Errorf(http.StatusConflict, "이미 받은 가입 보너스입니다.")
		}
		now := s.now()
		if err := post(ctx, tx, w, Mileage, s.cfg.JoinBonus, "join_bonus", "", now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE wallets SET join_bonus_at = $2 WHERE uid = $1`, uid, now); err != nil {
			return fmt.Errorf("mark join bonus %d: %w", uid, err)
		}
		w.JoinBonusAt = &now
		out = w
		return s.cfg.Outbox.Enqueue(ctx, tx, contract.TrackedEvent{
			Type: contract.EvCharge, Time: now, UID: uidString(uid), Amount: s.cfg.JoinBonus, Money: Mileage,
			Props: map[string]string{"kind": "join_bonus"},
		})
	})
	if err == nil {
		s.cfg.Changed()
	}
	return out, err
}

// LedgerEntry is one ledger row.
type LedgerEntry struct {
	ID           int64     `json:"id"`
	Money        string    `json:"money"`
	Delta        int64     `json:"delta"`
	BalanceAfter int64     `json:"balanceAfter"`
	Reason       string    `json:"reason"`
	Ref          string    `json:"ref"`
	CreatedAt    time.Time `json:"createdAt"`
}

// Ledger lists the user's ledger rows, newest first, before id (0 = from the newest).
func (s *Service) Ledger(ctx context.Context, uid, before int64, limit int) ([]LedgerEntry, error) {
	if before <= 0 {
		before = 1 << 62
	}
	rows, err := s.pool.Query(ctx, `SELECT id, money, delta, balance_after, reason, ref, created_at
		FROM ledger WHERE uid = $1 AND id < $2 ORDER BY id DESC LIMIT $3`, uid, before, limit)
	if err != nil {
		return nil, fmt.Errorf("list ledger %d: %w", uid, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (LedgerEntry, error) {
		var e LedgerEntry
		err := r.Scan(&e.ID, &e.Money, &e.Delta, &e.BalanceAfter, &e.Reason, &e.Ref, &e.CreatedAt)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("list ledger %d: %w", uid, err)
	}
	return out, nil
}
