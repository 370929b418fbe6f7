package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/contract"
	"storefront/demo"
	"storefront/demo/originals"
	"storefront/media/store"
	"storefront/writer/media"
)

// The demo catalog's pictures and pages come through the writer's upload and
// processing path (issue 16), like a content team's files: the launcher
// draws a small pool of originals (demo/originals), hands them to the media
// service in process (Enqueue, EnqueueVolumes: checked, stored under their
// hashes, one job per target), and the worker encodes each original once
// and gives every other target what it made. The edge serves covers and
// content only from what processing published.

// pointAtPool gives every work of a freshly generated catalog the address
// its pooled cover and wide cover will have: a picture's id is the hash of
// its original (contract.MediaImage), so the import publishes each work
// once with its final address, and only one job per distinct original
// makes the picture, instead of a job (and a republished work) per work.
func pointAtPool(cat *demo.Catalog, pool *originals.Pool) {
	covers := make([]string, len(pool.Covers))
	for i, b := range pool.Covers {
		covers[i] = contract.MediaURL(store.Key(b))
	}
	wides := make([]string, len(pool.Wides))
	for i, b := range pool.Wides {
		wides[i] = contract.MediaURL(store.Key(b))
	}
	for i := range cat.Products {
		p := &cat.Products[i]
		p.ThumbURL = covers[demo.PoolCover(p.PID, p.GenreID)]
		p.ThumbWideURL = wides[demo.PoolWide(p.PID)]
	}
}

// enqueueDemoMedia queues the jobs that give the loaded catalog its
// pictures and pages: a job per pooled cover and wide cover (for one work
// that shows it; the others already point at it), per banner and event (each
// drawn with its title), and per pooled episode and section
// (EnqueueVolumes: one job gives the episode to every volume drawn for it,
// 9 jobs for the 100,016 volumes of the default catalog). Targets come from
// PostgreSQL, so a run interrupted after the import finishes the work on
// the next run; files and jobs already there are not queued again. It
// returns how many jobs it queued.
func enqueueDemoMedia(ctx context.Context, svc *media.Service, db *pgxpool.Pool, pool *originals.Pool) (int, error) {
	queued := 0
	one := func(j media.Job, file []byte) error {
		id, err := svc.Enqueue(ctx, j, [][]byte{file})
		if err != nil {
			return err
		}
		if st, _, err := svc.JobState(ctx, id); err == nil && st != "done" {
			queued++
		}
		return nil
	}
	for _, pics := range []struct {
		target, col string
		files       [][]byte
	}{{media.TargetCover, "thumb_url", pool.Covers}, {media.TargetWide, "thumb_wide_url", pool.Wides}} {
		for _, f := range pics.files {
			var pid string
			err := db.QueryRow(ctx, `SELECT pid FROM works WHERE `+pics.col+` = $1 ORDER BY pid LIMIT 1`, contract.MediaURL(store.Key(f))).Scan(&pid)
			if err != nil {
				continue // no work shows this one
			}
			if err := one(media.Job{Target: pics.target, PID: pid}, f); err != nil {
				return queued, fmt.Errorf("demo %s of %s: %w", pics.target, pid, err)
			}
		}
	}
	type titled struct {
		id          int64
		kind, title string
	}
	collect := func(sql string) ([]titled, error) {
		rows, err := db.Query(ctx, sql)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []titled
		for rows.Next() {
			var t titled
			if err := rows.Scan(&t.id, &t.kind, &t.title); err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		return out, rows.Err()
	}
	banners, err := collect(`SELECT id, '', title FROM banners ORDER BY id`)
	if err != nil {
		return queued, fmt.Errorf("demo banners: %w", err)
	}
	for _, b := range banners {
		pic, err := originals.Banner(b.id, b.title)
		if err == nil {
			err = one(media.Job{Target: media.TargetBanner, RefID: b.id}, pic)
		}
		if err != nil {
			return queued, fmt.Errorf("demo banner %d: %w", b.id, err)
		}
	}
	events, err := collect(`SELECT eid, kind, title FROM events ORDER BY eid`)
	if err != nil {
		return queued, fmt.Errorf("demo events: %w", err)
	}
	for _, e := range events {
		pic, err := originals.EventBanner(e.id, e.kind, e.title)
		if err == nil {
			err = one(media.Job{Target: media.TargetEvent, RefID: e.id}, pic)
		}
		if err != nil {
			return queued, fmt.Errorf("demo event %d: %w", e.id, err)
		}
	}
	rows, err := db.Query(ctx, `SELECT v.pid, v.no, w.section FROM volumes v JOIN works w USING (pid) ORDER BY v.pid, v.no`)
	if err != nil {
		return queued, fmt.Errorf("demo volumes: %w", err)
	}
	groups := map[string][][]media.Volume{}
	for rows.Next() {
		var v media.Volume
		var section string
		if err := rows.Scan(&v.PID, &v.No, &section); err != nil {
			rows.Close()
			return queued, fmt.Errorf("demo volumes: %w", err)
		}
		if groups[section] == nil {
			groups[section] = make([][]media.Volume, demo.PoolEpisodes)
		}
		e := demo.PoolEpisode(v.PID, v.No)
		groups[section][e] = append(groups[section][e], v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return queued, fmt.Errorf("demo volumes: %w", err)
	}
	for _, sec := range []string{contract.SectionWebtoon, contract.SectionComic, contract.SectionNovel} {
		for e, vols := range groups[sec] {
			n, err := svc.EnqueueVolumes(ctx, pool.Episodes[sec][e], vols)
			if err != nil {
				return queued, fmt.Errorf("demo %s episode %d: %w", sec, e, err)
			}
			if n > 0 {
				queued++
			}
		}
	}
	return queued, nil
}

// waitMedia waits until no media job is queued or running (pictures: no
// job for a cover, banner or event picture), drawing a bar of the jobs done
// since it started.
func waitMedia(ctx context.Context, svc *media.Service, pictures bool, log *slog.Logger) error {
	t0 := time.Now()
	pending := func() (int, error) {
		all, pics, err := svc.Pending(ctx)
		if pictures {
			return pics, err
		}
		return all, err
	}
	total, err := pending()
	if err != nil || total == 0 {
		return err
	}
	label := "processing demo media"
	if pictures {
		label = "processing demo pictures"
	}
	bar := newProgress(os.Stderr, label, time.Second)
	defer bar.Done()
	for {
		n, err := pending()
		if err != nil {
			return err
		}
		bar.Update(total-n, total)
		if n == 0 {
			log.Info("demo media processed", "pictures only", pictures, "jobs", total, "encoded", svc.Encoded(), "took", time.Since(t0).Round(time.Millisecond))
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
