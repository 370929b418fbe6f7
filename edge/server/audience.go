// The audience of a read (seed §4 teen version, §6 adult content): which
// variant of an answer a reader gets, decided at the edge from the signed
// audience cookie and the channel, by the same contract rule the writer sells by.

package server

import (
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"storefront/contract"
)

// teen decides whether the reader gets the variant without adult works (not
// contract.AdultContent), from the signed audience cookie and the channel
// header, without calling the origin.
func (s *Server) teen(ctx *fasthttp.RequestCtx, now time.Time) bool {
	level := 0
	if tok := ctx.Request.Header.Cookie(contract.AudienceCookie); len(tok) > 0 {
		level = s.auds.level(s.audSecret, tok, now)
	}
	// The writer refuses to sell adult works by the same rule (contract).
	return !contract.AdultContent(level, contract.AdultChannel(string(ctx.Request.Header.Peek(contract.HeaderChannel))))
}

// audCache remembers verified audience tokens so a cached hit with a cookie
// does no HMAC work and allocates nothing.
type audCache struct {
	mu sync.Mutex
	m  map[string]audEntry
	// max is how many tokens it keeps before it starts afresh
	// (EDGE_AUDIENCE_CACHE_ENTRIES); bytes estimates what they hold.
	max   int
	bytes int64
}

// audEntryBytes is what one remembered token costs beside its text: the
// map's slot (string header, entry, tophash) and the string's allocation rounding.
const audEntryBytes = 64

// Bytes estimates what the remembered tokens hold.
func (a *audCache) Bytes() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.bytes
}

type audEntry struct {
	level int
	exp   int64
}

func (a *audCache) level(secret, tok []byte, now time.Time) int {
	a.mu.Lock()
	e, ok := a.m[string(tok)]
	a.mu.Unlock()
	if ok {
		if now.Unix() < e.exp {
			return e.level
		}
		return 0
	}
	aud, err := contract.VerifyAudience(secret, string(tok), now)
	e = audEntry{level: 0, exp: now.Add(time.Minute).Unix()}
	if err == nil {
		e = audEntry{level: aud.AdultLevel, exp: aud.Expires.Unix()}
	}
	a.mu.Lock()
	if a.m == nil || len(a.m) >= max(a.max, 1) {
		a.m = make(map[string]audEntry)
		a.bytes = 0
	}
	if _, ok := a.m[string(tok)]; !ok {
		a.bytes += int64(len(tok)) + audEntryBytes
	}
	a.m[string(tok)] = e
	a.mu.Unlock()
	return e.level
}
