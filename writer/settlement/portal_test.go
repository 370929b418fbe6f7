package settlement_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode"

	"storefront/contract"
	"storefront/writer/settlement"
	"storefront/writer/staff"
)

// TestProviderPortal is the partner portal through the real routes: a
// provider adds an episode of its own work with a release time and prices
// (through the content manager's route, under its scope), is refused prices
// and free episodes outside its contract's limits (400 in Korean, nothing
// changed) and the episode's pages (only the media pipeline sets them),
// while a content manager is not bound by the limits; every change is an
// audit row with the provider's login, before and after; after the release
// (the writer's clock moved) a reader buys the episode and the provider's
// daily view shows the sale, the buy and the reader.
func TestProviderPortal(t *testing.T) {
	t.Parallel()
	s, m := start(t)
	month := m.Format("2006-01")
	op := s.operator()
	s.work("PW1", 300, 100)
	s.do(op, 200, "PUT", "/admin/api/v1/providers/studio-p", map[string]any{"name": "스튜디오 P", "rateBp": 7000,
		"limits": map[string]any{"minPrice": 100, "maxPrice": 500, "maxFree": 1}})
	s.do(op, 200, "PUT", "/admin/api/v1/providers/studio-p/works/PW1", nil)
	prov, _ := s.member(op, "studio.p", staff.RoleProvider, "studio-p")
	content, _ := s.member(op, "kim.content", staff.RoleContent, "")

	// The provider reads its contract's limits.
	var c struct{ Provider settlement.Contract }
	if err := json.Unmarshal(s.do(prov, 200, "GET", "/admin/api/v1/providers/studio-p", nil), &c); err != nil {
		t.Fatal(err)
	}
	if l := c.Provider.Limits; l.MinPrice == nil || *l.MinPrice != 100 || *l.MaxPrice != 500 || *l.MaxFree != 1 {
		t.Fatalf("limits %+v", l)
	}
	// Bad limits are refused to the operator.
	s.do(op, 400, "PUT", "/admin/api/v1/providers/studio-p", map[string]any{"name": "스튜디오 P", "rateBp": 7000,
		"limits": map[string]any{"minPrice": 600, "maxPrice": 500}})

	release := m.Add(10 * 24 * time.Hour)
	vol := func() contract.Volume {
		var w struct{ Product contract.Product }
		if err := json.Unmarshal(s.do(prov, 200, "GET", "/admin/api/v1/works/PW1", nil), &w); err != nil {
			t.Fatal(err)
		}
		for _, v := range w.Product.Volumes {
			if v.No == 7 {
				return v
			}
		}
		return contract.Volume{}
	}
	// A new episode, scheduled; pages in its body are not the provider's
	// to set.
	s.do(prov, 201, "POST", "/admin/api/v1/works/PW1/volumes", map[string]any{"title": "7화", "releaseAt": release,
		"buyPrice": 400, "rentPrice": 200, "pages": 99, "contentVer": "forged"})
	if v := vol(); v.BuyPrice != 400 || v.RentPrice != 200 || !v.ReleaseAt.Equal(release) || v.Pages != 0 || v.ContentVer != "" {
		t.Fatalf("episode 7 as saved: %+v", v)
	}
	audits := s.int(`SELECT count(*) FROM staff_audit`)
	for _, bad := range []map[string]any{
		{"title": "7화", "releaseAt": release, "buyPrice": 50},                    // under the minimum
		{"title": "7화", "releaseAt": release, "buyPrice": 400, "rentPrice": 900}, // over the maximum
		{"title": "7화", "releaseAt": release, "buyPrice": 600},
	} {
		ans := s.do(prov, 400, "PUT", "/admin/api/v1/works/PW1/volumes/7", bad)
		var env struct{ Header struct{ Message string } }
		_ = json.Unmarshal(ans, &env)
		if !strings.ContainsFunc(env.Header.Message, func(r rune) bool { return unicode.Is(unicode.Hangul, r) }) {
			t.Errorf("refusal %s is not Korean", ans)
		}
	}
	// One free episode is allowed, a second is not.
	s.do(prov, 200, "PUT", "/admin/api/v1/works/PW1/volumes/1", map[string]any{"title": "1화", "isFree": true})
	s.do(prov, 400, "PUT", "/admin/api/v1/works/PW1/volumes/2", map[string]any{"title": "2화", "isFree": true})
	if v := vol(); v.BuyPrice != 400 || v.RentPrice != 200 {
		t.Fatalf("a refused change changed episode 7: %+v", v)
	}
	if n := s.int(`SELECT count(*) FROM staff_audit`); n != audits+1 {
		t.Fatalf("audit rows %d -> %d, want one more (the free episode)", audits, n)
	}
	// Work fields beyond episodes, deleting an episode: the content team's.
	s.do(prov, 403, "PATCH", "/admin/api/v1/works/PW1", map[string]any{"title": "바꾼 제목"})
	s.do(prov, 403, "DELETE", "/admin/api/v1/works/PW1/volumes/7", nil)
	// A content manager is not bound by a provider's contract.
	s.do(content, 200, "PUT", "/admin/api/v1/works/PW1/volumes/7", map[string]any{"title": "7화", "releaseAt": release, "buyPrice": 600, "rentPrice": 200})
	s.do(prov, 200, "PUT", "/admin/api/v1/works/PW1/volumes/7", map[string]any{"title": "7화", "releaseAt": release, "buyPrice": 450, "rentPrice": 200})
	var before, after struct{ BuyPrice int }
	var beforeRaw, afterRaw []byte
	if err := s.e.Pool.QueryRow(context.Background(), `SELECT before->'volumes'->'7', after->'volumes'->'7' FROM staff_audit
		WHERE actor_login = 'studio.p' AND actor_role = 'provider' AND action = 'PUT works/{pid}/volumes/{no}' AND target = 'work:PW1'
		ORDER BY id DESC LIMIT 1`).Scan(&beforeRaw, &afterRaw); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(beforeRaw, &before)
	_ = json.Unmarshal(afterRaw, &after)
	if before.BuyPrice != 600 || after.BuyPrice != 450 {
		t.Fatalf("audit of the provider's price change: %s -> %s", beforeRaw, afterRaw)
	}

	// Before the release the episode cannot be bought; after it, a reader
	// buys it and the provider sees the sale, the buy and the reader.
	r := s.reader("portal-reader@example.com")
	s.clock.Set(m.Add(24 * time.Hour))
	s.charge(r, 5000)
	s.clock.Set(release.Add(time.Hour))
	s.buy(r, release.Add(time.Hour), "", "PW1", 7, "B")
	// The clock moved past the sessions' idle timeout: the provider signs
	// in again (a second account of the same provider).
	prov, _ = s.member(s.operator(), "studio.p2", staff.RoleProvider, "studio-p")
	var d struct{ Days []settlement.Day }
	if err := json.Unmarshal(s.do(prov, 200, "GET", "/admin/api/v1/providers/studio-p/daily?month="+month, nil), &d); err != nil {
		t.Fatal(err)
	}
	day := release.In(settlement.KST).Format("2006-01-02")
	found := false
	for _, x := range d.Days {
		if x.Day == day && x.PID == "PW1" {
			found = true
			if x.Purchases+x.Mileage != 450 || x.PurchaseCount != 1 || x.Readers != 1 { // the first-charge mileage pays first
				t.Errorf("the release day: %+v", x)
			}
		}
	}
	if !found {
		t.Fatalf("no line for %s in %+v", day, d.Days)
	}
}
