package catalog

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// releaseLookback is how long after its release instant a volume written to
// the catalog is still put on the push schedule (a volume added already out,
// or whose work is shown again): the push worker's PUSH_WINDOW decides
// within it whether it still rings. Older volumes never ring, so a re-import
// of the whole catalog does not put the back catalogue on the schedule.
const releaseLookback = "1 day"

// scheduleReleases brings push_schedule up to date with the works just
// merged from tmp_works (and their volumes from tmp_volumes when
// withVolumes), in the transaction that wrote them: the push worker reads
// the schedule on its timer instead of the catalog tables (see migration
// 0041). A hidden work, a removed volume and an announced one (push_releases)
// leave it; a moved release_at or a renamed (or re-rated) work moves the row.
// Each row carries the work's authors (tmp_work_authors, written in the same
// merge) and whether the volume is the work's first: the worker tells the
// authors' followers of a new work or a new episode without reading the
// catalog tables.
func scheduleReleases(ctx context.Context, tx pgx.Tx, withVolumes bool) error {
	vols := "volumes"
	if withVolumes {
		vols = "tmp_volumes" // what volumes now hold for these works, without reading them again
	}
	if _, err := tx.Exec(ctx, `
		DELETE FROM push_schedule WHERE pid IN (SELECT pid FROM tmp_works);
		INSERT INTO push_schedule (pid, no, release_at, title, adult, authors, first)
		SELECT v.pid, v.no, v.release_at, w.title, w.age >= 19,
			ARRAY(SELECT wa.author_id FROM tmp_work_authors wa WHERE wa.pid = v.pid ORDER BY wa.ord),
			v.no = (SELECT min(x.no) FROM `+vols+` x WHERE x.pid = v.pid)
		FROM `+vols+` v JOIN tmp_works w ON w.pid = v.pid AND NOT w.hidden
		WHERE v.release_at > now() - interval '`+releaseLookback+`'
		  AND NOT EXISTS (SELECT 1 FROM push_releases r WHERE r.pid = v.pid AND r.no = v.no)
		ON CONFLICT (pid, no) DO UPDATE SET release_at = EXCLUDED.release_at, title = EXCLUDED.title, adult = EXCLUDED.adult,
			authors = EXCLUDED.authors, first = EXCLUDED.first;`); err != nil {
		return fmt.Errorf("schedule releases: %w", err)
	}
	return nil
}
