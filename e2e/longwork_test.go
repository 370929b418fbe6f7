package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A web novel of 10,000 episodes goes the whole way (issue 35): the admin
// posts it and is answered 201, it reaches the edge as a head and pages, it
// is listed, its detail and its volume list's last page show the newest
// episodes, and a member buys episode 9,999 and is given a content token for
// it. Before volumes were paged the work was one KV value over NATS's 1 MiB
// limit and was refused.
func TestTenThousandEpisodeWork(t *testing.T) {
	s := startStack(t)
	call, _ := s.browser(t)

	const pid = "LONGNOVEL1"
	const episodes = 10_000
	vols := make([]map[string]any, episodes)
	for i := range vols {
		no := i + 1
		v := map[string]any{"no": no, "title": fmt.Sprintf("%d화", no), "pages": 3, "previewPages": 1}
		if no <= 3 {
			v["isFree"] = true
		} else {
			v["buyPrice"], v["rentPrice"] = 100, 50
		}
		vols[i] = v
	}
	st, body := call("POST", "/admin/api/v1/works", map[string]any{
		"pid": pid, "section": "EB", "title": "만 화의 밤", "genreId": "05", "age": 0, "unit": "화",
		"authors": []map[string]any{{"authorName": "긴작가", "isWriter": true}},
		"volumes": vols,
	}, map[string]string{"Authorization": "Bearer dev-admin-token"})
	if st != 201 {
		t.Fatalf("create a work of %d episodes: %d %s", episodes, st, short(body))
	}

	eventually(t, "the work's detail on the edge", func() error {
		st, body := call("GET", "/home/api/v1/products/"+pid, nil, nil)
		if st != 200 {
			return fmt.Errorf("detail: %d %s", st, short(body))
		}
		var d struct {
			ProdInfo struct {
				Title       string `json:"title"`
				StartVolNo  int    `json:"startVolNo"`
				UpdateVolNo int    `json:"updateVolNo"`
			} `json:"prodInfo"`
		}
		if err := json.Unmarshal(body, &d); err != nil {
			return err
		}
		if d.ProdInfo.Title != "만 화의 밤" || d.ProdInfo.StartVolNo != 1 || d.ProdInfo.UpdateVolNo != episodes {
			return fmt.Errorf("detail shows %+v", d.ProdInfo)
		}
		return nil
	})

	st, body = call("GET", "/home/api/v1/products/"+pid+"/volumes?order=latest&page=1&size=20", nil, nil)
	if st != 200 {
		t.Fatalf("volume list: %d %s", st, short(body))
	}
	for _, want := range []string{`"no":10000,`, `"no":9981,`} {
		if !strings.Contains(string(body), want) {
			t.Fatalf("the newest page of the volume list lacks %s: %s", want, short(body))
		}
	}
	st, body = call("GET", "/home/api/v1/products/"+pid+"/volumes?order=old&page=500&size=20", nil, nil)
	if st != 200 || !strings.Contains(string(body), `"no":9981,`) || !strings.Contains(string(body), `"no":10000,`) {
		t.Fatalf("the last page in order: %d %s", st, short(body))
	}

	st, body = call("GET", "/home/api/v1/novel/new", nil, nil)
	if st != 200 || !strings.Contains(string(body), pid) {
		t.Fatalf("the new works list lacks the work: %d %s", st, short(body))
	}

	if st, body := call("POST", "/home/api/v1/auth/signup", map[string]any{"email": "longnovel@example.com", "password": "correct horse"}, nil); st != 201 {
		t.Fatalf("signup: %d %s", st, short(body))
	}
	if st, body := call("POST", "/home/api/v1/wallet/join-bonus", nil, nil); st != 200 {
		t.Fatalf("join bonus: %d %s", st, short(body))
	}
	if st, body := call("POST", "/home/api/v1/purchases", map[string]any{"pid": pid, "vols": []int{9999}, "buyType": "B"},
		map[string]string{"Idempotency-Key": "longnovel-9999"}); st != 200 {
		t.Fatalf("buy episode 9,999: %d %s", st, short(body))
	}
	st, body = call("POST", "/protocol/api/v-1/product/download-auth.asp", map[string]any{"pid": pid, "vol": 9999}, nil)
	if st != 200 {
		t.Fatalf("download auth of episode 9,999: %d %s", st, short(body))
	}
	var auth struct {
		IsAuth   bool   `json:"isAuth"`
		AuthType string `json:"authType"`
		Token    string `json:"token"`
	}
	if err := json.Unmarshal(body, &auth); err != nil {
		t.Fatal(err)
	}
	if !auth.IsAuth || auth.AuthType != "B" || auth.Token == "" {
		t.Fatalf("episode 9,999 bought but not readable: %s", short(body))
	}
}

// short cuts a body for a failure message.
func short(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}
