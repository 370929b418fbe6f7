package server_test

import (
	"encoding/json"
	"testing"
	"time"

	"storefront/contract"
	"storefront/edge/server"
)

// A work whose new volume arrives ahead of its release gets its detail and
// volume list rendered for the release instant before it: at the instant
// the reader is answered with them, showing the new volume, without a
// render on the request path. The clock is driven by the test.
func TestReleasingWorkRenderedAheadOfItsRelease(t *testing.T) {
	e := newEnv(t)
	clk := &clock{t: t0}
	release := t0.Add(30 * time.Minute)
	o := &memObjects{}
	e.putProduct(product("other", contract.SectionWebtoon, "다른 작품"))
	g := startEdge(t, e, func(c *server.Config) { c.Now = clk.Now }, withObjects(o))
	g.waitReady()
	var d struct {
		VolList []struct{ No int } `json:"volList"`
	}
	var vl struct {
		VolList []struct{ No int } `json:"volList"`
	}
	e.putProduct(product("rel", contract.SectionWebtoon, "예약 작품", func(p *contract.Product) {
		p.Volumes = append(p.Volumes, contract.Volume{No: 4, Title: "4화", ReleaseAt: release, BuyPrice: 300, Pages: 3, PreviewPages: 1, ContentBase: contract.ContentBase("rel", 4)})
	}, withContent(4, contentVersion(o, "00e4", 3))))
	eventually(t, "the new head applied", func() bool {
		resp, _ := g.get("/home/api/v1/products/rel")
		return resp.StatusCode == 200
	})
	g.getJSON("/home/api/v1/products/rel", 200, &d)
	g.getJSON("/home/api/v1/products/rel/volumes?order=latest", 200, &vl)
	if len(d.VolList) != 3 || vl.VolList[0].No != 3 {
		t.Fatalf("before the release: detail %d volumes, newest %d", len(d.VolList), vl.VolList[0].No)
	}

	clk.Set(release.Add(-2 * time.Second))
	eventually(t, "answers rendered ahead", func() bool {
		return metric(t, g, "edge_release_answers_rendered_total") >= 6 // three answers, two audiences
	})
	served := metric(t, g, "edge_release_answers_served_total")
	g.getJSON("/home/api/v1/products/rel", 200, &d)
	if metric(t, g, "edge_release_answers_served_total") != served || len(d.VolList) != 3 {
		t.Fatalf("an answer for the release served before it (%d volumes)", len(d.VolList))
	}

	clk.Set(release)
	// Held compressed only, the answer taken at the instant is whole for a
	// client that takes no compression too.
	resp, plain := g.get("/home/api/v1/products/rel", "Accept-Encoding: identity")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" || len(plain) < 512 {
		t.Fatalf("plain answer at the release: status %d, encoding %q, %d bytes (the test needs one over 512 to be compressed)", resp.StatusCode, resp.Header.Get("Content-Encoding"), len(plain))
	}
	if err := json.Unmarshal(plain, &d); err != nil || len(d.VolList) != 4 {
		t.Fatalf("plain answer at the release: %v, %d volumes", err, len(d.VolList))
	}
	// Cached as it was held (compressed only), it is still signed over the
	// plain body for an old client signing with a token.
	resp, _ = g.get("/home/api/v1/products/rel", "Accept-Encoding: br", contract.HeaderSignatureVersion+": 1", contract.HeaderRequestToken+": tok")
	if want := string(contract.AppendSignatureVersion(nil, 1, 200, []byte("tok"), plain)); resp.Header.Get(contract.HeaderSignature) != want {
		t.Fatalf("signature %q, want %q over the plain body", resp.Header.Get(contract.HeaderSignature), want)
	}
	g.getJSON("/home/api/v1/products/rel", 200, &d)
	g.getJSON("/home/api/v1/products/rel/volumes?order=latest", 200, &vl)
	if len(d.VolList) != 4 || vl.VolList[0].No != 4 {
		t.Fatalf("at the release: detail %d volumes, newest %d", len(d.VolList), vl.VolList[0].No)
	}
	if got := metric(t, g, "edge_release_answers_served_total") - served; got != 2 {
		t.Fatalf("%v answers at the release came from the ones rendered ahead, want 2", got)
	}
	// The new volume's viewer answer too.
	resp, media := g.get("/home/api/v1/products/rel/volumes/4/media")
	if got := metric(t, g, "edge_release_answers_served_total") - served; got != 3 || resp.StatusCode != 200 {
		t.Fatalf("viewer answer at the release: status %d, %v answers from the ones rendered ahead, want 3: %s", resp.StatusCode, got, media)
	}
}

// A list that ends at a release instant (the section's next release: the
// releasing work moves to its top) and that a reader asked is rendered for
// the instant a few seconds before it: at the instant the reader gets it
// without a render, and it is the answer a render then gives.
func TestListEndingAtReleaseRenderedAhead(t *testing.T) {
	e := newEnv(t)
	clk := &clock{t: t0}
	release := t0.Add(30 * time.Minute)
	e.putProduct(product("other", contract.SectionWebtoon, "다른 작품", func(p *contract.Product) {
		p.Volumes[2].ReleaseAt = t0.Add(-time.Hour) // newer than rel's before the release
	}))
	g := startEdge(t, e, func(c *server.Config) { c.Now = clk.Now })
	g.waitReady()
	e.putProduct(product("rel", contract.SectionWebtoon, "예약 작품", func(p *contract.Product) {
		p.Volumes = append(p.Volumes, contract.Volume{No: 4, Title: "4화", ReleaseAt: release, BuyPrice: 300, Pages: 3, PreviewPages: 1, ContentBase: contract.ContentBase("rel", 4)})
	}))
	const path = "/home/api/v1/webtoon/genre/all?sort=recent"
	var l struct {
		List []struct {
			PID string `json:"pid"`
		} `json:"list"`
	}
	eventually(t, "both works listed", func() bool {
		g.getJSON(path+"&page=1&x="+time.Now().Format("150405.000000"), 200, &l)
		return len(l.List) == 2
	})
	g.getJSON(path, 200, &l)
	if l.List[0].PID != "other" {
		t.Fatalf("before the release the list starts with %s", l.List[0].PID)
	}

	clk.Set(release.Add(-5 * time.Second))
	rendered := metric(t, g, "edge_release_answers_rendered_total")
	eventually(t, "the list rendered ahead", func() bool {
		// The releasing work's detail and volumes (two audiences) and the list.
		return metric(t, g, "edge_release_answers_rendered_total") >= rendered+5
	})
	clk.Set(release)
	served := metric(t, g, "edge_release_answers_served_total")
	_, ahead := g.get(path)
	if got := metric(t, g, "edge_release_answers_served_total") - served; got != 1 {
		t.Fatalf("%v answers of the list came from the one rendered ahead, want 1", got)
	}
	_, fresh := g.get(path + "&page=1") // another key: rendered at the instant
	if err := json.Unmarshal(ahead, &l); err != nil || len(l.List) != 2 || l.List[0].PID != "rel" {
		t.Fatalf("at the release the list starts with %+v (%v)", l.List, err)
	}
	if string(ahead) != string(fresh) {
		t.Fatalf("the list rendered ahead differs from a render at the instant:\n%s\n%s", ahead, fresh)
	}
}
