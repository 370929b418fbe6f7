package testenv

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// RowQuerier is what TableFingerprint reads through: a pool, a connection
// or a transaction.
type RowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// TableFingerprint digests every row of each table as "table=md5;...", in
// the order given: two equal fingerprints mean no row was added, removed or
// changed in between. Tests of refused requests take one before and after
// to prove the refusal changed nothing.
func TableFingerprint(t testing.TB, ctx context.Context, db RowQuerier, tables ...string) string {
	t.Helper()
	var b strings.Builder
	for _, tb := range tables {
		var sum *string
		q := `SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM ` + pgx.Identifier{tb}.Sanitize() + ` t`
		if err := db.QueryRow(ctx, q).Scan(&sum); err != nil {
			t.Fatalf("fingerprint %s: %v", tb, err)
		}
		b.WriteString(tb + "=")
		if sum != nil {
			b.WriteString(*sum)
		}
		b.WriteString(";")
	}
	return b.String()
}
