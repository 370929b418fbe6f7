package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"

	"storefront/contract"
)

// A reader's visit through the edge (list, detail, viewer page views), then
// sign-up and a purchase forwarded to the writer, lands in ClickHouse as one
// visit: the writer's business events carry the session the edge handed out
// and the same IP hash, so the funnel sees every step for that session; the
// member_profile event arrives with the 27 profile fields as props.
func TestPurchaseJoinsTheVisit(t *testing.T) {
	s := startStack(t)
	call, jar := s.browser(t)
	const pid = "VISIT1"
	if st, body := call("POST", "/admin/api/v1/works", map[string]any{
		"pid": pid, "section": "WT", "title": "방문 작품", "genreId": "21", "age": 0,
		"authors": []map[string]any{{"authorName": "작가", "isWriter": true}},
		"volumes": []map[string]any{{"no": 1, "title": "1화", "isFree": true, "pages": 10, "previewPages": 10},
			{"no": 2, "title": "2화", "buyPrice": 100, "rentPrice": 50, "pages": 10, "previewPages": 2}},
	}, map[string]string{"Authorization": "Bearer dev-admin-token"}); st != 201 {
		t.Fatalf("create work: %d %s", st, body)
	}
	for _, page := range []string{"/webtoon/weekday/mon", "/webtoon/detail/" + pid, "/viewer/" + pid + "/1"} {
		if st, body := call("POST", "/home/api/v1/tracking/page-view", map[string]string{"curPageUrl": page}, nil); st != 200 {
			t.Fatalf("page view %s: %d %s", page, st, body)
		}
	}
	edge, _ := url.Parse(s.edgeURL)
	var sid string
	for _, c := range jar.Cookies(edge) {
		if c.Name == contract.SessionCookie {
			sid = c.Value
		}
	}
	if sid == "" {
		t.Fatal("the edge handed out no tracking session")
	}
	st, body := call("POST", "/home/api/v1/auth/signup", map[string]any{"email": "visit@example.com", "password": "correct horse"}, nil)
	if st != 201 {
		t.Fatalf("signup: %d %s", st, body)
	}
	var m struct {
		AuthInfo struct{ UID string } `json:"authInfo"`
	}
	_ = json.Unmarshal(body, &m)
	if st, body := call("POST", "/home/api/v1/wallet/join-bonus", nil, nil); st != 200 {
		t.Fatalf("join bonus: %d %s", st, body)
	}
	if st, body := call("POST", "/home/api/v1/purchases", map[string]any{"pid": pid, "vols": []int{2}, "buyType": "B"},
		map[string]string{"Idempotency-Key": "visit-purchase"}); st != 200 {
		t.Fatalf("purchase: %d %s", st, body)
	}

	opts, err := clickhouse.ParseDSN(s.clickhouseURL)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := clickhouse.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	ctx := context.Background()
	eventually(t, "the visit's events in ClickHouse", func() error {
		rows, err := ch.Query(ctx, `SELECT type, uid, ip_hash, channel, ua_class, length(props_keys) FROM events FINAL WHERE session_id = ?`, sid)
		if err != nil {
			return err
		}
		defer rows.Close()
		hashes := map[string]bool{}
		seen := map[string]bool{}
		for rows.Next() {
			var typ, uid, ipHash, channel, uaClass string
			var props uint64
			if err := rows.Scan(&typ, &uid, &ipHash, &channel, &uaClass, &props); err != nil {
				return err
			}
			seen[typ] = true
			hashes[ipHash] = true
			if channel != "AW" || uaClass != "android-web" {
				return fmt.Errorf("%s event with channel %q, ua class %q", typ, channel, uaClass)
			}
			if typ != contract.EvPageView && uid != m.AuthInfo.UID {
				return fmt.Errorf("%s event of uid %q", typ, uid)
			}
			if typ == contract.EvMemberProfile && props != 27 {
				return fmt.Errorf("member_profile with %d props", props)
			}
		}
		for _, typ := range []string{contract.EvPageView, contract.EvSignup, contract.EvLogin, contract.EvMemberProfile, contract.EvCharge, contract.EvPurchase} {
			if !seen[typ] {
				return fmt.Errorf("no %s event of the session yet (have %v)", typ, seen)
			}
		}
		if len(hashes) != 1 {
			return fmt.Errorf("the session's events carry %d different IP hashes", len(hashes))
		}
		return nil
	})
	// The rollup is written by a materialized view after the raw rows of the
	// same insert, so it may show them a moment later.
	eventually(t, "the visit's funnel", func() error {
		var steps uint8
		if err := ch.QueryRow(ctx, `SELECT groupBitOrMerge(steps) FROM funnel_daily WHERE actor = ?`, sid).Scan(&steps); err != nil {
			return err
		}
		if steps != 15 {
			return fmt.Errorf("funnel steps of the visit %04b, want list, detail, viewer and purchase (1111)", steps)
		}
		return nil
	})
}
