package devstack

import "net/url"

// withDatabase returns rawURL with its path (the database name) replaced.
func withDatabase(rawURL, db string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	u.Path = "/" + db
	return u.String()
}

// WithDatabase is withDatabase for callers outside the package (ClickHouse URLs too).
func WithDatabase(rawURL, db string) string { return withDatabase(rawURL, db) }
