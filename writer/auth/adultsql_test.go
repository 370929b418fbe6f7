package auth_test

import (
	"context"
	"testing"
	"time"

	"storefront/contract"
	"storefront/writer/auth"
	"storefront/writer/internal/writertest"
)

// TestAdultContentSQL: the SQL form of "level 2" the push fan-out decides
// many members by agrees with AdultLevel for every flag and around birthdays
// (the day before, on the day, a 29 February, the KST midnight).
func TestAdultContentSQL(t *testing.T) {
	pool, _ := writertest.Pool(t)
	ctx := context.Background()
	date := func(y int, m time.Month, d int) *time.Time { x := time.Date(y, m, d, 0, 0, 0, 0, time.UTC); return &x }
	births := []*time.Time{nil, date(1990, 1, 1), date(2007, 3, 15), date(2007, 3, 16), date(2008, 2, 29), date(2012, 6, 1)}
	nows := []time.Time{
		time.Date(2026, 3, 15, 12, 0, 0, 0, contract.KST), time.Date(2026, 3, 16, 0, 0, 0, 0, contract.KST),
		time.Date(2026, 3, 15, 23, 59, 0, 0, contract.KST), time.Date(2027, 2, 28, 12, 0, 0, 0, contract.KST),
		time.Date(2027, 3, 1, 0, 30, 0, 0, contract.KST), time.Date(2026, 3, 15, 15, 30, 0, 0, time.UTC),
	}
	q := `SELECT ` + auth.AdultContentSQL("u", "$5::timestamptz") + ` FROM (SELECT $1::boolean AS auth_real, $2::boolean AS auth_adult,
		$3::boolean AS toggle19, $4::date AS birth_date) u`
	for _, b := range births {
		for _, now := range nows {
			for _, flags := range [][3]bool{{true, true, true}, {true, true, false}, {true, false, true}, {false, true, true}} {
				u := &auth.User{AuthReal: flags[0], AuthAdult: flags[1], Toggle19: flags[2], BirthDate: b}
				var got bool
				if err := pool.QueryRow(ctx, q, flags[0], flags[1], flags[2], b, now).Scan(&got); err != nil {
					t.Fatal(err)
				}
				if want := u.AdultLevel(now) == 2; got != want {
					t.Errorf("born %v, flags %v, at %v: SQL %v, AdultLevel %d", b, flags, now, got, u.AdultLevel(now))
				}
			}
		}
	}
}
