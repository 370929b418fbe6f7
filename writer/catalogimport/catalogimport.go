// Package catalogimport bulk-loads a demo.Catalog into the writer's catalog
// tables and enqueues every document in the outbox, so the relay publishes the
// whole catalog to the KV bucket like any admin change.
//
// Import is idempotent: importing the same catalog again replaces the rows it
// wrote before (upserts by pid and id), it never duplicates them.
package catalogimport

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"storefront/contract"
	"storefront/demo"
	"storefront/writer/catalog"
	"storefront/writer/outbox"
)

// Import loads cat in one transaction (all or nothing).
func Import(ctx context.Context, pool *pgxpool.Pool, cat *demo.Catalog) error {
	now := time.Now().UTC()
	ps := make([]contract.Product, len(cat.Products))
	copy(ps, cat.Products)
	for i := range ps {
		// Volumes are normalized in place: give each product its own slice.
		ps[i].Volumes = append([]contract.Volume(nil), ps[i].Volumes...)
		ps[i].Authors = append([]contract.Author(nil), ps[i].Authors...)
		if err := catalog.Normalize(&ps[i], now); err != nil {
			return fmt.Errorf("import product %s: %w", ps[i].PID, err)
		}
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// Chunks keep the staging tables and the COPY buffers bounded for
		// catalogs of 100,000 works.
		const chunk = 5000
		for i := 0; i < len(ps); i += chunk {
			if err := catalog.SaveProducts(ctx, tx, ps[i:min(i+chunk, len(ps))], true); err != nil {
				return fmt.Errorf("import products: %w", err)
			}
		}
		for i := range cat.Events {
			e := cat.Events[i]
			if _, err := catalog.SaveEvent(ctx, tx, &e); err != nil {
				return fmt.Errorf("import event %d: %w", e.EID, err)
			}
		}
		for i := range cat.Awards {
			a := cat.Awards[i]
			if _, err := catalog.SaveAward(ctx, tx, &a); err != nil {
				return fmt.Errorf("import award %d: %w", a.EID, err)
			}
		}
		for i := range cat.FAQs {
			f := cat.FAQs[i]
			if _, err := catalog.SaveFAQ(ctx, tx, &f); err != nil {
				return fmt.Errorf("import faq %d: %w", f.ID, err)
			}
		}
		for i := range cat.Notices {
			n := cat.Notices[i]
			if _, err := catalog.SaveNotice(ctx, tx, &n, now); err != nil {
				return fmt.Errorf("import notice %d: %w", n.ID, err)
			}
		}
		for i := range cat.Banners {
			b := cat.Banners[i]
			if _, err := catalog.SaveBanner(ctx, tx, &b); err != nil {
				return fmt.Errorf("import banner %d: %w", b.ID, err)
			}
		}
		for i := range cat.Keywords {
			k := cat.Keywords[i]
			if _, err := catalog.SaveKeyword(ctx, tx, &k); err != nil {
				return fmt.Errorf("import keyword %d: %w", k.ID, err)
			}
		}
		ql, jp := cat.QuickLinks, cat.JumpingPass
		if err := catalog.SaveSiteDoc(ctx, tx, contract.KeyQuickLinks, &ql); err != nil {
			return fmt.Errorf("import quick links: %w", err)
		}
		if err := catalog.SaveSiteDoc(ctx, tx, contract.KeyJumpPass, &jp); err != nil {
			return fmt.Errorf("import jumping pass: %w", err)
		}
		// Keep generated ids of later admin creations clear of imported ids.
		if _, err := tx.Exec(ctx, `
			SELECT setval(pg_get_serial_sequence('events', 'eid'), GREATEST((SELECT max(eid) FROM events), 10000000));
			SELECT setval(pg_get_serial_sequence('awards', 'eid'), GREATEST((SELECT max(eid) FROM awards), 10000000));
			SELECT setval(pg_get_serial_sequence('faq', 'id'), GREATEST((SELECT max(id) FROM faq), 10000000));
			SELECT setval(pg_get_serial_sequence('notices', 'id'), GREATEST((SELECT max(id) FROM notices), 10000000));
			SELECT setval(pg_get_serial_sequence('banners', 'id'), GREATEST((SELECT max(id) FROM banners), 10000000));
			SELECT setval(pg_get_serial_sequence('keywords', 'id'), GREATEST((SELECT max(id) FROM keywords), 10000000));
			SELECT setval(pg_get_serial_sequence('authors', 'id'), GREATEST((SELECT max(id) FROM authors), 10000000));`); err != nil {
			return fmt.Errorf("advance id sequences: %w", err)
		}
		// The import runs outside any writer: wake the running relays.
		return outbox.Notify(ctx, tx)
	})
}
