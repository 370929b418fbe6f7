package money

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"storefront/contract"
	"storefront/writer/httpapi"
)

// The app stores whose purchases become app money (writer/appmoney verifies
// them; this file only moves the money).
const (
	StoreGoogle = "google"
	StoreApple  = "apple"
)

// StorePurchase is a purchase a store's own server confirmed.
type StorePurchase struct {
	Store         string
	TransactionID string // Google Play orderId, App Store transactionId
	ProductID     string
	Money         string // Android or IOS
	Amount        int64  // for all units
	Quantity      int    // units bought (0 = 1); a partial refund voids some
	PurchasedAt   time.Time
}

// StoreReceipt is the answer to a receipt: the purchase as recorded and the
// wallet after it. Replayed is true when the purchase was credited before.
type StoreReceipt struct {
	Header        contract.Header `json:"header"`
	Store         string          `json:"store"`
	TransactionID string          `json:"transactionId"`
	ProductID     string          `json:"productId"`
	Money         string          `json:"money"`
	Amount        int64           `json:"amount"`
	Status        string          `json:"status"` // credited, revoked
	Replayed      bool            `json:"replayed"`
	Wallet        *Wallet         `json:"wallet,omitempty"`
}

// ErrReceiptTaken answers a receipt another member's account was credited with.
var ErrReceiptTaken = &httpapi.Error{Code: http.StatusConflict, Msg: "다른 계정에서 이미 사용한 구매 영수증입니다."}

func storeRef(store, txID string) string { return store + ":" + txID }

// CreditStore credits a store purchase to uid once per (store, transaction
// id): the purchase row, the ledger row and the business event are one
// transaction, and the primary key makes a concurrent or later copy of the
// same receipt a replay that changes nothing.
func (s *Service) CreditStore(ctx context.Context, uid int64, p StorePurchase) (*StoreReceipt, error) {
	if p.Money != Android && p.Money != IOS {
		return nil, fmt.Errorf("credit store purchase %s: money %q is not app money", storeRef(p.Store, p.TransactionID), p.Money)
	}
	if p.Quantity <= 0 {
		p.Quantity = 1
	}
	var out *StoreReceipt
	changed := false
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		changed = false
		w, err := lockWallet(ctx, tx, uid)
		if err != nil {
			return err
		}
		now := s.now()
		tag, err := tx.Exec(ctx, `INSERT INTO store_purchases (store, transaction_id, uid, product_id, money, amount, quantity, status, purchased_at, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, 'credited', $8, $9) ON CONFLICT (store, transaction_id) DO NOTHING`,
			p.Store, p.TransactionID, uid, p.ProductID, p.Money, p.Amount, p.Quantity, p.PurchasedAt, now)
		if err != nil {
			return fmt.Errorf("record store purchase %s: %w", storeRef(p.Store, p.TransactionID), err)
		}
		if tag.RowsAffected() == 0 {
			var owner int64
			var status string
			if err := tx.QueryRow(ctx, `SELECT uid, status FROM store_purchases WHERE store = $1 AND transaction_id = $2`,
				p.Store, p.TransactionID).Scan(&owner, &status); err != nil {
				return fmt.Errorf("read store purchase %s: %w", storeRef(p.Store, p.TransactionID), err)
			}
			if owner != uid {
				return ErrReceiptTaken
			}
			out = &StoreReceipt{Status: status, Replayed: true, Wallet: w}
			return nil
		}
		ref := storeRef(p.Store, p.TransactionID)
		if err := post(ctx, tx, w, p.Money, p.Amount, "store_purchase", ref, now); err != nil {
			return err
		}
		if err := s.cfg.Outbox.Enqueue(ctx, tx, contract.TrackedEvent{Type: contract.EvCharge, Time: now,
			UID: uidString(uid), Amount: p.Amount, Money: p.Money,
			Props: map[string]string{"store": p.Store, "transactionId": p.TransactionID, "productId": p.ProductID}}); err != nil {
			return err
		}
		if err := s.profileChanged(ctx, tx, uid); err != nil {
			return err
		}
		out = &StoreReceipt{Status: "credited", Wallet: w}
		changed = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	if changed {
		s.cfg.Changed()
	}
	out.Header = contract.Header{Code: 200}
	out.Store, out.TransactionID, out.ProductID, out.Money, out.Amount = p.Store, p.TransactionID, p.ProductID, p.Money, p.Amount
	return out, nil
}

// StoreRevocation is what RevokeStore did.
type StoreRevocation struct {
	Known     bool  // the purchase was credited here
	Applied   bool  // this call revoked it (false: revoked before, or unknown)
	Taken     int64 // taken back from the wallet
	Shortfall int64 // already spent: recorded in money_flags
}

// storeOwner finds whose a store purchase is (known false: not credited here).
func (s *Service) storeOwner(ctx context.Context, store, txID string) (uid int64, known bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT uid FROM store_purchases WHERE store = $1 AND transaction_id = $2`, store, txID).Scan(&uid)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("find store purchase %s: %w", storeRef(store, txID), err)
	}
	return uid, true, nil
}

// RevokeStore takes back a purchase its store refunded or voided, once: the
// unspent part of its money is debited, the spent rest (never a negative
// balance) flags the account in money_flags. The caller has confirmed the
// refund with the store itself. An unknown purchase changes nothing.
func (s *Service) RevokeStore(ctx context.Context, store, txID, reason string) (StoreRevocation, error) {
	return s.RevokeStoreUnits(ctx, store, txID, reason, 0)
}

// RevokeStoreUnits is RevokeStore for a quantity-based partial refund:
// voided is how many units the store has voided in all so far (0 or the
// whole quantity = every unit). Only the share of the units not voided
// before is taken back, so a copy of the same void takes nothing more; the
// purchase is revoked once every unit is.
func (s *Service) RevokeStoreUnits(ctx context.Context, store, txID, reason string, voided int) (StoreRevocation, error) {
	uid, known, err := s.storeOwner(ctx, store, txID)
	if err != nil || !known {
		return StoreRevocation{}, err
	}
	var out StoreRevocation
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		out = StoreRevocation{Known: true}
		// The wallet first, as every money change of a user, then the purchase.
		w, err := lockWallet(ctx, tx, uid)
		if err != nil {
			return err
		}
		var money, status string
		var amount int64
		var quantity, before int
		if err := tx.QueryRow(ctx, `SELECT money, amount, status, quantity, voided_quantity FROM store_purchases
			WHERE store = $1 AND transaction_id = $2 FOR UPDATE`, store, txID).Scan(&money, &amount, &status, &quantity, &before); err != nil {
			return fmt.Errorf("lock store purchase %s: %w", storeRef(store, txID), err)
		}
		units := voided
		if units <= 0 || units > quantity {
			units = quantity
		}
		if status == "revoked" || units <= before {
			return nil
		}
		now := s.now()
		ref := storeRef(store, txID)
		// The share of the units voided now, from the running totals so the
		// parts add up to the amount whatever the rounding.
		due := amount*int64(units)/int64(quantity) - amount*int64(before)/int64(quantity)
		take := min(due, w.Balance(money))
		if err := post(ctx, tx, w, money, -take, "store_refund", ref, now); err != nil {
			return err
		}
		short := due - take
		status = "credited"
		if units == quantity {
			status = "revoked"
		}
		if _, err := tx.Exec(ctx, `UPDATE store_purchases SET status = $3, voided_quantity = $4, revoked_amount = revoked_amount + $5,
			shortfall = shortfall + $6, revoke_reason = $7, revoked_at = $8 WHERE store = $1 AND transaction_id = $2`,
			store, txID, status, units, take, short, reason, now); err != nil {
			return fmt.Errorf("revoke store purchase %s: %w", ref, err)
		}
		if short > 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO money_flags (uid, reason, ref, amount, created_at) VALUES ($1, 'store_refund_spent', $2, $3, $4)`,
				uid, ref, short, now); err != nil {
				return fmt.Errorf("flag %d for %s: %w", uid, ref, err)
			}
		}
		if err := s.cfg.Outbox.Enqueue(ctx, tx, contract.TrackedEvent{Type: contract.EvCharge, Time: now,
			UID: uidString(uid), Amount: -take, Money: money,
			Props: map[string]string{"store": store, "transactionId": txID, "kind": "cancel"}}); err != nil {
			return err
		}
		if err := s.profileChanged(ctx, tx, uid); err != nil {
			return err
		}
		out.Applied, out.Taken, out.Shortfall = true, take, short
		return nil
	})
	if err != nil {
		return StoreRevocation{}, err
	}
	if out.Applied {
		s.cfg.Changed()
		if out.Shortfall > 0 {
			s.log.Warn("store refund of spent app money: account flagged", "uid", uid, "ref", storeRef(store, txID), "shortfall", out.Shortfall)
		}
	}
	return out, nil
}

// StoreReinstatement is what ReinstateStore did.
type StoreReinstatement struct {
	Known    bool  // the purchase was credited here
	Applied  bool  // this call reinstated it (false: not revoked, or unknown)
	Returned int64 // credited back: what the refund had taken
	Cleared  int64 // the shortfall whose flag was cleared
}

// ReinstateStore undoes RevokeStore when the store reverses its refund:
// what the refund took is credited back and the flag of the spent rest is
// cleared (the member owes nothing any more). The purchase is credited
// again, so a later refund revokes it anew. The caller has confirmed the
// reversal with the store; a purchase not revoked changes nothing.
func (s *Service) ReinstateStore(ctx context.Context, store, txID, reason string) (StoreReinstatement, error) {
	uid, known, err := s.storeOwner(ctx, store, txID)
	if err != nil || !known {
		return StoreReinstatement{}, err
	}
	var out StoreReinstatement
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		out = StoreReinstatement{Known: true}
		w, err := lockWallet(ctx, tx, uid)
		if err != nil {
			return err
		}
		var money, status string
		var taken, short int64
		if err := tx.QueryRow(ctx, `SELECT money, status, revoked_amount, shortfall FROM store_purchases
			WHERE store = $1 AND transaction_id = $2 FOR UPDATE`, store, txID).Scan(&money, &status, &taken, &short); err != nil {
			return fmt.Errorf("lock store purchase %s: %w", storeRef(store, txID), err)
		}
		if status != "revoked" {
			return nil
		}
		now := s.now()
		ref := storeRef(store, txID)
		if err := post(ctx, tx, w, money, taken, "store_refund_reversed", ref, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE store_purchases SET status = 'credited', voided_quantity = 0, revoked_amount = 0, shortfall = 0,
			revoke_reason = '', revoked_at = NULL, reinstated_at = $3 WHERE store = $1 AND transaction_id = $2`, store, txID, now); err != nil {
			return fmt.Errorf("reinstate store purchase %s: %w", ref, err)
		}
		if _, err := tx.Exec(ctx, `UPDATE money_flags SET cleared_at = $3, clear_reason = $4
			WHERE uid = $1 AND ref = $2 AND reason = 'store_refund_spent' AND cleared_at IS NULL`, uid, ref, now, reason); err != nil {
			return fmt.Errorf("clear flag of %s: %w", ref, err)
		}
		if err := s.cfg.Outbox.Enqueue(ctx, tx, contract.TrackedEvent{Type: contract.EvCharge, Time: now,
			UID: uidString(uid), Amount: taken, Money: money,
			Props: map[string]string{"store": store, "transactionId": txID, "kind": "cancel_reversed"}}); err != nil {
			return err
		}
		if err := s.profileChanged(ctx, tx, uid); err != nil {
			return err
		}
		out.Applied, out.Returned, out.Cleared = true, taken, short
		return nil
	})
	if err != nil {
		return StoreReinstatement{}, err
	}
	if out.Applied {
		s.cfg.Changed()
	}
	return out, nil
}
