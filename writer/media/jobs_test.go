package media_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"storefront/contract"
	"storefront/devstack/testenv"
	"storefront/media/process"
	"storefront/media/store"
	"storefront/writer/internal/writertest"
	"storefront/writer/media"
	"storefront/writer/server"
)

func TestReplacedVersionIsReadableUntilItsGraceEndsThenRemoved(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.createWork("P3", "CM")
	shared := jpegOf(t, picture(500, 700, 5))
	onlyOld := jpegOf(t, picture(500, 700, 6))
	onlyNew := jpegOf(t, picture(500, 700, 7))
	s, o, n := e.sendOK(shared), e.sendOK(onlyOld), e.sendOK(onlyNew)

	old := e.runJob(map[string]any{"target": "volume", "pid": "P3", "no": 1, "uploads": []string{s, o}})
	_, first := e.content("P3", 1, func(_ contract.Volume, m contract.ContentManifest) bool { return len(m.Pages) == 2 })
	replaced := e.runJob(map[string]any{"target": "volume", "pid": "P3", "no": 1, "uploads": []string{s, n}})
	if replaced.URL == old.URL {
		t.Fatal("other files made the same version")
	}
	vol, cur := e.content("P3", 1, func(v contract.Volume, _ contract.ContentManifest) bool { return v.ContentVer != first.Ver })
	if len(vol.ContentRetired) != 1 || vol.ContentRetired[0].Ver != first.Ver {
		t.Fatalf("the old version is not retiring: %+v", vol.ContentRetired)
	}
	if until := time.Until(vol.ContentRetired[0].Until); until < 50*time.Minute || until > 61*time.Minute {
		t.Fatalf("retires in %s, want the hour of grace", until)
	}
	// Within the grace period nothing is removed: a reader of the old
	// version keeps reading.
	if n, err := e.Srv.Media().Sweep(context.Background()); err != nil || n != 0 {
		t.Fatalf("sweep within grace: %d, %v", n, err)
	}
	e.checkVersion(first)

	e.clock.Store(int64(2 * time.Hour / time.Second))
	if n, err := e.Srv.Media().Sweep(context.Background()); err != nil || n != 1 {
		t.Fatalf("sweep after grace: %d, %v", n, err)
	}
	after, _ := e.content("P3", 1, func(v contract.Volume, _ contract.ContentManifest) bool { return len(v.ContentRetired) == 0 })
	if after.ContentVer != cur.Ver {
		t.Fatalf("current changed by the sweep: %s", after.ContentVer)
	}
	// The current version stays whole; every object of the old one goes,
	// its manifest too.
	e.checkVersion(cur)
	for _, k := range contract.ContentKeys(&first) {
		if ok, _ := e.store.Exists(context.Background(), k); ok {
			t.Fatalf("the retired version's %s is still stored", k)
		}
	}
	if n := e.Count(`SELECT count(*) FROM media_versions`); n != 1 {
		t.Fatalf("%d versions recorded, want the current one", n)
	}
	e.noVolumeDocuments()
}

func TestCrashedJobsAreTakenUpAgainAndPoisonJobsStop(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.createWork("P4", "CM")
	page := jpegOf(t, picture(400, 600, 8))
	id := e.sendOK(page)
	key := store.Key(page)
	ctx := context.Background()
	insert := func(attempts int, lease time.Duration) int64 {
		var jid int64
		if err := e.Pool.QueryRow(ctx, `INSERT INTO media_jobs (target, pid, no, originals, kinds, state, attempts, lease_until)
			VALUES ('volume', 'P4', 1, $1, '{jpeg}', 'running', $2, $3) RETURNING id`,
			[]string{key}, attempts, time.Now().Add(lease)).Scan(&jid); err != nil {
			t.Fatal(err)
		}
		return jid
	}
	// A worker died holding this one (lease ran out); another is alive and
	// working on that one; this one crashed its worker three times.
	crashed := insert(1, -time.Minute)
	alive := insert(1, time.Hour)
	poison := insert(3, -time.Minute)
	_ = id
	state := func(jid int64) (string, string, int) {
		var s, r string
		var a int
		if err := e.Pool.QueryRow(ctx, `SELECT state, reason, attempts FROM media_jobs WHERE id = $1`, jid).Scan(&s, &r, &a); err != nil {
			t.Fatal(err)
		}
		return s, r, a
	}
	writertest.Eventually(t, 30*time.Second, "crashed and poison jobs settled", func() bool {
		a, _, _ := state(crashed)
		b, _, _ := state(poison)
		return a == "done" && b == "failed"
	})
	if s, _, a := state(crashed); s != "done" || a != 2 {
		t.Fatalf("crashed job: %s after %d attempts", s, a)
	}
	if s, r, _ := state(poison); s != "failed" || !testenv.Korean(r) {
		t.Fatalf("poison job: %s %q", s, r)
	}
	if s, _, a := state(alive); s != "running" || a != 1 {
		t.Fatalf("a job another worker holds was taken: %s, %d attempts", s, a)
	}
	e.content("P4", 1, func(_ contract.Volume, m contract.ContentManifest) bool { return len(m.Pages) == 1 })
}

func TestComicZipAndNovelEPUBBecomeVersions(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.createWork("P7", "CM")
	e.createWork("P8", "EB")
	p1, p2 := jpegOf(t, picture(300, 450, 11)), pngOf(t, picture(300, 450, 12))
	e.runJob(map[string]any{"target": "volume", "pid": "P7", "no": 1,
		"uploads": []string{e.sendOK(zipOf(t, map[string][]byte{"p10.png": p2, "p9.jpg": p1, "ComicInfo.xml": []byte("<x/>")}))}})
	_, comic := e.content("P7", 1, func(_ contract.Volume, m contract.ContentManifest) bool { return len(m.Pages) == 2 })
	// Comic pages are kept whole (no slicing), at their own width.
	for _, p := range comic.Pages {
		if p.W != 300 || p.H != 450 || len(p.Widths)*len(comic.Formats) != 3 {
			t.Fatalf("comic page %+v in %v", p, comic.Formats)
		}
	}
	e.checkVersion(comic)

	book := epubWithPicture(t, `<h1 style="x">제1장</h1><p onmouseover="" >첫 문장</p>`, pngOf(t, picture(200, 300, 13)))
	if _, st, _ := e.send(book, 1<<20); st != http.StatusBadRequest {
		t.Fatalf("an EPUB with an event handler: %d", st)
	}
	book = epubWithPicture(t, `<h1 style="color:red">제1장</h1><p>첫 문장</p><p><img src="a.png" alt="삽화"/></p>`, pngOf(t, picture(200, 300, 13)))
	j := e.runJob(map[string]any{"target": "volume", "pid": "P8", "no": 1, "uploads": []string{e.sendOK(book)}})
	_, novel := e.content("P8", 1, func(_ contract.Volume, m contract.ContentManifest) bool { return m.Kind == contract.MediaKindText })
	if novel.Chunks != 1 || len(novel.Pages) != 1 {
		t.Fatalf("novel: %d chunks, %d pictures", novel.Chunks, len(novel.Pages))
	}
	if j.URL != contract.VolumeMediaBase("P8", 1, novel.Ver) {
		t.Fatalf("job url %s, version %s", j.URL, novel.Ver)
	}
	chunk, err := e.store.Get(context.Background(), contract.ContentChunkKey(novel.Ver, 1))
	if err != nil {
		t.Fatal(err)
	}
	want := `<h1>제1장</h1><p>첫 문장</p><p><img src="` + j.URL + `/1" alt="삽화"/></p>`
	if string(chunk) != want {
		t.Fatalf("chunk:\n%s\nwant:\n%s", chunk, want)
	}
	e.checkVersion(novel)
	e.noVolumeDocuments()
}

func TestEnqueueInProcessReusesWhatItAlreadyMade(t *testing.T) {
	t.Parallel()
	e := start(t, func(c *server.Config) { c.MediaWorkers = 2 })
	e.createWork("P9", "CM")
	ctx := context.Background()
	svc := e.Srv.Media()
	pages := [][]byte{jpegOf(t, picture(300, 400, 21)), jpegOf(t, picture(300, 400, 22))}
	cover := jpegOf(t, picture(300, 400, 23))
	vol, err := svc.Enqueue(ctx, media.Job{Target: media.TargetVolume, PID: "P9", No: 1}, pages)
	if err != nil {
		t.Fatal(err)
	}
	cov, err := svc.Enqueue(ctx, media.Job{Target: media.TargetCover, PID: "P9"}, [][]byte{cover})
	if err != nil {
		t.Fatal(err)
	}
	writertest.Eventually(t, 60*time.Second, "both jobs done", func() bool {
		a, _, _ := svc.JobState(ctx, vol)
		b, _, _ := svc.JobState(ctx, cov)
		return a == "done" && b == "done"
	})
	e.content("P9", 1, func(_ contract.Volume, m contract.ContentManifest) bool { return len(m.Pages) == 2 })
	// A second run of the launcher: the same files find their done jobs.
	again, err := svc.Enqueue(ctx, media.Job{Target: media.TargetVolume, PID: "P9", No: 1}, pages)
	if err != nil || again != vol {
		t.Fatalf("same pages again: job %d (%v), want %d", again, err, vol)
	}
	if n := e.Count(`SELECT count(*) FROM media_jobs`); n != 2 {
		t.Fatalf("%d jobs after enqueuing the same files twice", n)
	}
	_, err = svc.Enqueue(ctx, media.Job{Target: media.TargetVolume, PID: "P9", No: 1}, [][]byte{[]byte(`<svg onload="alert(1)"/>`)})
	if _, ok := process.AsRefusal(err); !ok {
		t.Fatalf("an SVG page: %v, want a refusal", err)
	}
	if _, err := svc.Enqueue(ctx, media.Job{Target: media.TargetVolume, PID: "P9", No: 7}, pages); err == nil {
		t.Fatal("pages for a volume that does not exist were queued")
	}
	if n := e.Count(`SELECT count(*) FROM media_jobs`); n != 2 {
		t.Fatalf("%d jobs after refused enqueues", n)
	}
}

func TestOneOriginalGivenToManyVolumesIsEncodedOnce(t *testing.T) {
	t.Parallel()
	e := start(t)
	w := work("P11", "CM")
	var vols []map[string]any
	var refs []media.Volume
	for no := 1; no <= 40; no++ {
		vols = append(vols, map[string]any{"no": no, "title": fmt.Sprintf("%d권", no), "isFree": true, "pages": 2, "previewPages": 1})
		refs = append(refs, media.Volume{PID: "P11", No: no})
	}
	w["volumes"] = vols
	if st, body := e.Admin.Do("POST", "/admin/api/v1/works", w); st != http.StatusCreated {
		t.Fatalf("create work: %d %s", st, body)
	}
	e.createWork("P12", "CM")
	ctx := context.Background()
	svc := e.Srv.Media()
	pages := [][]byte{jpegOf(t, picture(300, 400, 41)), jpegOf(t, picture(300, 400, 42))}
	n, err := svc.EnqueueVolumes(ctx, pages, refs)
	if err != nil || n != 40 {
		t.Fatalf("queued %d (%v), want 40", n, err)
	}
	// The same first page as another work's cover: another recipe, made on its own.
	if _, err := svc.Enqueue(ctx, media.Job{Target: media.TargetCover, PID: "P12"}, pages[:1]); err != nil {
		t.Fatal(err)
	}
	writertest.Eventually(t, 120*time.Second, "every job done", func() bool {
		return e.Count(`SELECT count(*) FROM media_jobs WHERE state <> 'done'`) == 0
	})
	// Forty volumes name one version: one set of objects, one manifest.
	_, first := e.content("P11", 1, func(_ contract.Volume, m contract.ContentManifest) bool { return len(m.Pages) == 2 })
	for no := 2; no <= 40; no++ {
		e.content("P11", no, func(v contract.Volume, _ contract.ContentManifest) bool { return v.ContentVer == first.Ver })
	}
	e.checkVersion(first)
	if n := e.Count(`SELECT count(*) FROM media_versions`); n != 1 {
		t.Fatalf("%d versions for one set of files", n)
	}
	if n := e.Count(`SELECT count(*) FROM volume_media`); n != 40 {
		t.Fatalf("%d volume rows, want one per volume", n)
	}
	// The two originals once each (the cover's original is the first page).
	if n := e.Count(`SELECT count(*) FROM media_refs WHERE owner = 'orig'`); n != 2 {
		t.Fatalf("%d references to originals, want 2", n)
	}
	e.noVolumeDocuments()
	// Two pages for forty volumes and one cover: three pictures encoded.
	if got := svc.Encoded(); got != 3 {
		t.Fatalf("%d pictures encoded for 2 pages given to 40 volumes and a cover, want 3", got)
	}
	// A second run queues nothing.
	if n, err := svc.EnqueueVolumes(ctx, pages, refs); err != nil || n != 0 {
		t.Fatalf("the same pages again queued %d (%v)", n, err)
	}
	// A volume that is not there refuses the whole call.
	if _, err := svc.EnqueueVolumes(ctx, pages, []media.Volume{{PID: "P11", No: 41}, {PID: "P11", No: 1}}); err == nil {
		t.Fatal("pages for a volume that does not exist were queued")
	}
	// One job for the forty volumes (one section, one recipe) and one for
	// the cover: not a job row per volume.
	if n := e.Count(`SELECT count(*) FROM media_jobs`); n != 2 {
		t.Fatalf("%d jobs, want 2", n)
	}
	if n := e.Count(`SELECT count(*) FROM media_job_volumes`); n != 39 {
		t.Fatalf("%d shared volumes, want the 39 after the job's own", n)
	}
	// A volume served by the shared job finds it among its jobs.
	st, body := e.Admin.Do("GET", "/admin/api/v1/media/jobs?pid=P11&no=7", nil)
	var listed struct {
		Jobs []struct {
			State  string `json:"state"`
			Target string `json:"target"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(body, &listed); st != http.StatusOK || err != nil || len(listed.Jobs) != 1 || listed.Jobs[0].State != "done" {
		t.Fatalf("jobs of P11/7: %d %s", st, body)
	}
	if svc.Encoded() != 3 {
		t.Fatalf("encoded %d after the second run", svc.Encoded())
	}
}
