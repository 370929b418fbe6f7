package auth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"storefront/contract"
	"storefront/writer/httpapi"
	"storefront/writer/identity"
)

// IdentityProvider reads a finished identity verification from the
// provider (writer/identity.Client: PortOne V2, or its sandbox).
type IdentityProvider interface {
	Get(ctx context.Context, id string) (*identity.Verification, error)
}

// Answers of adult verification. Age is the verified birth date's, never the
// request's; one person (CI) is one adult identity.
var (
	errIdentityDown     = httpapi.Errorf(http.StatusServiceUnavailable, "본인인증 서비스에 연결할 수 없습니다. 잠시 후 다시 시도해 주세요.")
	errIdentityOff      = httpapi.Errorf(http.StatusServiceUnavailable, "본인인증 서비스가 설정되지 않았습니다.")
	errIdentityTampered = httpapi.Errorf(http.StatusBadGateway, "본인인증 결과를 확인할 수 없습니다. 다시 인증해 주세요.")
	errIdentityPending  = httpapi.Errorf(http.StatusConflict, "본인인증이 아직 끝나지 않았습니다. 인증 창에서 본인인증을 마쳐 주세요.")
	errIdentityUsed     = httpapi.Errorf(http.StatusConflict, "이미 처리된 본인인증입니다. 다시 인증해 주세요.")
	errOtherPerson      = httpapi.Errorf(http.StatusConflict, "이미 다른 사람의 정보로 본인인증한 계정입니다. 본인인증 정보는 바꿀 수 없습니다.")
	errCIOtherAccount   = httpapi.Errorf(http.StatusConflict, "이 본인인증 정보는 이미 다른 계정에서 사용 중입니다. 한 사람은 한 계정만 본인인증할 수 있습니다.")
)

// identityPending is how long a started verification may be finished, and
// maxPending how many unfinished ones a member may hold at once (each start
// is a row).
const (
	identityPending = 24 * time.Hour
	maxPending      = 10
)

var errTooManyPending = httpapi.Errorf(http.StatusTooManyRequests, "본인인증을 너무 많이 시작했습니다. 잠시 후 다시 시도해 주세요.")

type startAnswer struct {
	httpapi.Header200
	IdentityVerificationID string `json:"identityVerificationId"`
	StoreID                string `json:"storeId"`
	ChannelKey             string `json:"channelKey"`
	// PageURL is a sandbox's certification page standing in for the
	// provider's window (the page appends redirectUrl); empty with the real
	// provider, whose browser SDK the page loads instead.
	PageURL string `json:"pageUrl,omitempty"`
}

// startAdult issues an identity verification id to the session's member:
// only that member may later present it, once.
func (a *Auth) startAdult(w http.ResponseWriter, r *http.Request) error {
	uid, ok := a.UserID(r)
	if !ok {
		return httpapi.ErrUnauthorized
	}
	if a.cfg.Identity == nil {
		return errIdentityOff
	}
	id := "iv-" + randomToken(18)
	now := a.cfg.Now()
	ctx := r.Context()
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM identity_verifications WHERE uid = $1 AND used_at IS NULL AND created_at < $2`,
			uid, now.Add(-identityPending)); err != nil {
			return fmt.Errorf("drop stale verifications of %d: %w", uid, err)
		}
		var pending int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM identity_verifications WHERE uid = $1 AND used_at IS NULL`, uid).Scan(&pending); err != nil {
			return fmt.Errorf("count verifications of %d: %w", uid, err)
		}
		if pending >= maxPending {
			return errTooManyPending
		}
		if _, err := tx.Exec(ctx, `INSERT INTO identity_verifications (id, uid, created_at) VALUES ($1, $2, $3)`, id, uid, now); err != nil {
			return fmt.Errorf("start verification of %d: %w", uid, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	ans := startAnswer{Header200: httpapi.H200(), IdentityVerificationID: id, StoreID: a.cfg.IdentityStoreID, ChannelKey: a.cfg.IdentityChannelKey}
	if a.cfg.IdentityPageURL != "" {
		q := url.Values{"storeId": {a.cfg.IdentityStoreID}, "identityVerificationId": {id}, "channelKey": {a.cfg.IdentityChannelKey}}
		ans.PageURL = strings.TrimRight(a.cfg.IdentityPageURL, "/") + "/identity-verification?" + q.Encode()
	}
	return httpapi.JSON(w, http.StatusOK, ans)
}

// verified is what adult verification keeps of a provider's answer.
type verified struct {
	name   string
	birth  time.Time
	gender string // M, F or ""
	ciHash string
}

// readVerification asks the provider and checks its answer: the id we asked
// for, VERIFIED, a LIVE channel unless test channels are allowed, a name, a
// real birth date and a CI.
func (a *Auth) readVerification(ctx context.Context, id string) (verified, error) {
	iv, err := a.cfg.Identity.Get(ctx, id)
	var ae *identity.APIError
	switch {
	case errors.Is(err, identity.ErrDown):
		a.log.Warn("identity provider down", "err", err)
		return verified{}, errIdentityDown
	case errors.Is(err, identity.ErrNotFound):
		return verified{}, errIdentityPending
	case errors.As(err, &ae):
		// The provider refuses our credentials or store: an operator's matter.
		a.log.Error("identity provider refused the store", "err", err)
		return verified{}, errIdentityDown
	case err != nil:
		return verified{}, fmt.Errorf("read verification %s: %w", id, err)
	}
	if iv.ID != id {
		a.log.Warn("identity answer for another id", "asked", id, "got", iv.ID)
		return verified{}, errIdentityTampered
	}
	switch iv.Status {
	case identity.StatusReady:
		return verified{}, errIdentityPending
	case identity.StatusFailed:
		reason := "본인 정보가 확인되지 않았습니다."
		if iv.Failure != nil && iv.Failure.Reason != "" {
			reason = iv.Failure.Reason
		}
		return verified{}, httpapi.BadRequest("본인인증에 실패했습니다: %s", reason)
	case identity.StatusVerified:
	default:
		a.log.Warn("identity answer with an unknown status", "id", id, "status", iv.Status)
		return verified{}, errIdentityTampered
	}
	c := iv.VerifiedCustomer
	if iv.Channel == nil || (iv.Channel.Type != identity.ChannelLive && !a.cfg.IdentityTestChannels) {
		a.log.Warn("identity verified on a channel that is not live", "id", id)
		return verified{}, errIdentityTampered
	}
	if c == nil || strings.TrimSpace(c.Name) == "" || c.CI == "" || !httpapi.CleanText(c.Name) {
		a.log.Warn("identity answer without name or CI", "id", id)
		return verified{}, errIdentityTampered
	}
	birth, err := time.ParseInLocation("2006-01-02", c.BirthDate, contract.KST)
	if err != nil || birth.After(a.cfg.Now()) || birth.Year() < 1900 {
		a.log.Warn("identity answer with a bad birth date", "id", id)
		return verified{}, errIdentityTampered
	}
	v := verified{name: strings.TrimSpace(c.Name), birth: birth, ciHash: a.ciHash(c.CI)}
	switch c.Gender {
	case "MALE":
		v.gender = "M"
	case "FEMALE":
		v.gender = "F"
	}
	return v, nil
}

// ciHash is the stored form of a CI: an HMAC under the server's secret, so a
// leaked table does not hand out the people's CIs.
func (a *Auth) ciHash(ci string) string {
	m := hmac.New(sha256.New, []byte(a.cfg.CISecret))
	m.Write([]byte(ci))
	return hex.EncodeToString(m.Sum(nil))
}

// oldVerifyFields are the body fields of the old sandbox flow: a name and
// birth date the reader typed, which nothing may trust.
var oldVerifyFields = []string{"name", "birthDate", "gender"}

// verifyAdult finishes an identity verification the member started: the
// provider's answer decides name, birth date (so age) and CI.
func (a *Auth) verifyAdult(w http.ResponseWriter, r *http.Request) error {
	uid, ok := a.UserID(r)
	if !ok {
		return httpapi.ErrUnauthorized
	}
	body, err := io.ReadAll(r.Body)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return httpapi.ErrTooLarge
	}
	if err != nil {
		return httpapi.BadRequest("요청 내용을 읽을 수 없습니다.")
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) == nil {
		for _, f := range oldVerifyFields {
			if _, ok := fields[f]; ok {
				return httpapi.BadRequest("이름과 생년월일은 본인인증 기관이 확인합니다. 본인인증을 시작(adult/start)하고 인증을 마친 뒤 identityVerificationId만 보내 주세요.")
			}
		}
	}
	var req struct {
		ID string `json:"identityVerificationId"`
	}
	if err := httpapi.DecodeJSONBytes(body, &req); err != nil {
		return err
	}
	if req.ID == "" || len(req.ID) > 100 {
		return httpapi.BadRequest("본인인증 아이디(identityVerificationId)가 필요합니다.")
	}
	if a.cfg.Identity == nil {
		return errIdentityOff
	}
	ctx := r.Context()
	var owner int64
	var used *time.Time
	err = a.pool.QueryRow(ctx, `SELECT uid, used_at FROM identity_verifications WHERE id = $1`, req.ID).Scan(&owner, &used)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return httpapi.Errorf(http.StatusNotFound, "시작하지 않은 본인인증입니다. 본인인증을 다시 시작해 주세요.")
	case err != nil:
		return fmt.Errorf("find verification %s: %w", req.ID, err)
	case owner != uid:
		return httpapi.Errorf(http.StatusForbidden, "다른 회원이 시작한 본인인증입니다.")
	case used != nil:
		return errIdentityUsed
	}
	v, err := a.readVerification(ctx, req.ID)
	if err != nil {
		return err
	}
	u, err := a.storeVerification(ctx, uid, req.ID, v)
	if err != nil {
		return err
	}
	a.Changed()
	a.setUserCookies(w, r, u)
	return a.answerUser(w, r, http.StatusOK, u)
}

// storeVerification keeps a verified identity for uid in one transaction:
// the verification id is spent, the member keeps one person for good, and a
// CI belongs to one member. Any refusal changes nothing.
func (a *Auth) storeVerification(ctx context.Context, uid int64, id string, v verified) (*User, error) {
	now := a.cfg.Now()
	adult := (&User{BirthDate: &v.birth}).Age(now) >= 19
	var u *User
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		var oldCI *string
		var authReal bool
		var oldName string
		var oldBirth *time.Time
		if err := tx.QueryRow(ctx, `SELECT ci_hash, auth_real, real_name, birth_date FROM users WHERE uid = $1 FOR UPDATE`, uid).
			Scan(&oldCI, &authReal, &oldName, &oldBirth); err != nil {
			return fmt.Errorf("lock user %d: %w", uid, err)
		}
		switch {
		case oldCI != nil && *oldCI != v.ciHash:
			return errOtherPerson
		case oldCI == nil && authReal && (oldName != v.name || oldBirth == nil || oldBirth.Format(time.DateOnly) != v.birth.Format(time.DateOnly)):
			// Verified before CIs were kept: the same name and birth date only.
			return errOtherPerson
		}
		tag, err := tx.Exec(ctx, `UPDATE identity_verifications SET used_at = $2 WHERE id = $1 AND uid = $3 AND used_at IS NULL`, id, now, uid)
		if err != nil {
			return fmt.Errorf("spend verification %s: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return errIdentityUsed
		}
		var other int64
		err = tx.QueryRow(ctx, `SELECT uid FROM users WHERE ci_hash = $1 AND uid <> $2`, v.ciHash, uid).Scan(&other)
		if err == nil {
			return errCIOtherAccount
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("find CI owner: %w", err)
		}
		u, err = scanUser(tx.QueryRow(ctx, `UPDATE users SET real_name = $2, birth_date = $3, gender = $4,
			auth_real = true, auth_adult = $5, verified_at = $6, ci_hash = $7 WHERE uid = $1 RETURNING `+userCols,
			uid, v.name, v.birth, v.gender, adult, now, v.ciHash))
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23505" {
			return errCIOtherAccount // another account took the CI meanwhile
		}
		if err != nil {
			return fmt.Errorf("store verification of %d: %w", uid, err)
		}
		// Age, gender and the adult fields of the profile changed.
		return a.profileChanged(ctx, tx, uid)
	})
	return u, err
}
