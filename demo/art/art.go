// Package art draws the demo store's pictures and texts: SVG covers, wide covers,
// banners, icons, webtoon strips, comic pages and novel text chunks. Everything is
// a pure function of its arguments (a hash of the pid, volume and page), so the
// edge can render on request and cache the result; a CDN serves real files in
// production.
//
// Each call builds the whole document in one buffer and writes it with a single
// Write, so a failing writer never receives half an image. Text from products
// (titles, authors) is escaped; the output always parses as XML. The functions
// keep no state and are safe for concurrent use. They do not check that a volume
// or page exists: that is the caller's (the edge's) business.
package art

import (
	"io"
	"strconv"
	"unicode/utf8"

	"storefront/contract"
)

// Sizes of the generated images, in pixels.
const (
	CoverW, CoverH   = 360, 480
	WideW, WideH     = 720, 360
	BannerW, BannerH = 720, 360 // 2:1, the box every banner slot of the store reserves
	IconSize         = 96
	StripW, StripH   = 720, 2000 // one webtoon strip image
	PageW, PageH     = 720, 1024 // one comic page
)

const fontFamily = `'Noto Sans KR','Apple SD Gothic Neo','Malgun Gothic',sans-serif`

// rng is splitmix64: tiny, allocation-free and good enough for shapes.
type rng uint64

func (r *rng) next() uint64 {
	*r += 0x9E3779B97F4A7C15
	z := uint64(*r)
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// intn returns a number in [0, n).
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// between returns a number in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

func hashString(h uint64, s string) uint64 {
	if h == 0 {
		h = 14695981039346656037
	}
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func hashInts(h uint64, xs ...int) uint64 {
	for _, x := range xs {
		for k := 0; k < 8; k++ {
			h ^= uint64(byte(x >> (8 * k)))
			h *= 1099511628211
		}
	}
	return h
}

// buf accumulates one document.
type buf struct{ b []byte }

func (b *buf) s(x string) *buf { b.b = append(b.b, x...); return b }
func (b *buf) i(x int) *buf    { b.b = strconv.AppendInt(b.b, int64(x), 10); return b }

// f writes x/10 with one decimal, for opacities and fine positions.
func (b *buf) f10(x int) *buf {
	b.b = strconv.AppendInt(b.b, int64(x/10), 10)
	if r := x % 10; r != 0 {
		b.b = append(b.b, '.', byte('0'+r))
	}
	return b
}

// esc appends s escaped for XML text and attribute values. Characters XML does
// not allow at all (most control characters, broken UTF-8) become U+FFFD.
func (b *buf) esc(s string) *buf {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '&':
				b.b = append(b.b, "&amp;"...)
			case c == '<':
				b.b = append(b.b, "&lt;"...)
			case c == '>':
				b.b = append(b.b, "&gt;"...)
			case c == '"':
				b.b = append(b.b, "&quot;"...)
			case c == '\'':
				b.b = append(b.b, "&#39;"...)
			case c < 0x20 && c != '\t' && c != '\n' && c != '\r':
				b.b = append(b.b, "\uFFFD"...)
			default:
				b.b = append(b.b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == 0xFFFE || r == 0xFFFF {
			b.b = append(b.b, "\uFFFD"...)
		} else {
			b.b = append(b.b, s[i:i+size]...)
		}
		i += size
	}
	return b
}

func (b *buf) color(c rgb) *buf {
	const hex = "0123456789abcdef"
	b.b = append(b.b, '#', hex[c.r>>4], hex[c.r&15], hex[c.g>>4], hex[c.g&15], hex[c.b>>4], hex[c.b&15])
	return b
}

func (b *buf) write(w io.Writer) error {
	_, err := w.Write(b.b)
	return err
}

func newBuf(size int) *buf { return &buf{b: make([]byte, 0, size)} }

func (b *buf) open(w, h int) {
	b.s(`<svg xmlns="http://www.w3.org/2000/svg" width="`).i(w).s(`" height="`).i(h).
		s(`" viewBox="0 0 `).i(w).s(" ").i(h).s(`" font-family="`).s(fontFamily).s(`">`)
}

func (b *buf) close() { b.s("</svg>\n") }

type rgb struct{ r, g, b uint8 }

// hsl converts hue (degrees), saturation and lightness (percent) to RGB.
func hsl(h, s, l int) rgb {
	h = ((h % 360) + 360) % 360
	fs, fl := float64(s)/100, float64(l)/100
	c := (1 - abs(2*fl-1)) * fs
	hp := float64(h) / 60
	x := c * (1 - abs(mod2(hp)-1))
	var r, g, bl float64
	switch int(hp) {
	case 0:
		r, g = c, x
	case 1:
		r, g = x, c
	case 2:
		g, bl = c, x
	case 3:
		g, bl = x, c
	case 4:
		r, bl = x, c
	default:
		r, bl = c, x
	}
	m := fl - c/2
	to := func(v float64) uint8 { return uint8(min(255, max(0, (v+m)*255+0.5))) }
	return rgb{to(r), to(g), to(bl)}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func mod2(x float64) float64 {
	for x >= 2 {
		x -= 2
	}
	return x
}

// wrap splits s into at most maxLines lines of about width runes, breaking at
// spaces where it can; a cut-off title ends in "…".
func wrap(s string, width, maxLines int) []string {
	var lines []string
	for len(s) > 0 && len(lines) < maxLines {
		if utf8.RuneCountInString(s) <= width {
			lines = append(lines, s)
			s = ""
			break
		}
		cut, runes, lastSpace := len(s), 0, -1
		for i, r := range s {
			if runes == width {
				cut = i
				break
			}
			if r == ' ' {
				lastSpace = i
			}
			runes++
		}
		if lastSpace > 0 {
			cut = lastSpace
		}
		lines = append(lines, s[:cut])
		s = trimLeftSpace(s[cut:])
	}
	if s != "" && len(lines) > 0 {
		last := lines[len(lines)-1]
		if utf8.RuneCountInString(last) >= width {
			_, size := utf8.DecodeLastRuneInString(last)
			last = last[:len(last)-size]
		}
		lines[len(lines)-1] = last + "…"
	}
	return lines
}

func trimLeftSpace(s string) string {
	for len(s) > 0 && s[0] == ' ' {
		s = s[1:]
	}
	return s
}

func sectionLabel(section string) string {
	switch section {
	case contract.SectionWebtoon:
		return "웹툰"
	case contract.SectionComic:
		return "만화"
	case contract.SectionNovel:
		return "소설"
	}
	return "작품"
}

func authorLine(p *contract.Product) string {
	switch len(p.Authors) {
	case 0:
		return ""
	case 1:
		return p.Authors[0].AuthorName
	}
	return p.Authors[0].AuthorName + " · " + p.Authors[1].AuthorName
}

// shapes scatters translucent circles and rounded squares in a hue family.
func (b *buf) shapes(r *rng, w, h, hue, count int) {
	for range count {
		c := hsl(hue+r.between(-40, 40), r.between(40, 80), r.between(45, 85))
		op := r.between(2, 6) // tenths
		if r.intn(2) == 0 {
			b.s(`<circle cx="`).i(r.intn(w)).s(`" cy="`).i(r.intn(h)).s(`" r="`).i(r.between(w/12, w/3)).
				s(`" fill="`).color(c).s(`" fill-opacity="`).f10(op).s(`"/>`)
		} else {
			sz := r.between(w/10, w/3)
			b.s(`<rect x="`).i(r.intn(w) - sz/2).s(`" y="`).i(r.intn(h) - sz/2).s(`" width="`).i(sz).s(`" height="`).i(sz).
				s(`" rx="`).i(sz / 5).s(`" transform="rotate(`).i(r.between(-30, 30)).s(" ").i(w / 2).s(" ").i(h / 2).
				s(`)" fill="`).color(c).s(`" fill-opacity="`).f10(op).s(`"/>`)
		}
	}
}

// badge draws a small rounded label.
func (b *buf) badge(x, y, w int, fill rgb, label string) {
	b.s(`<rect x="`).i(x).s(`" y="`).i(y).s(`" width="`).i(w).s(`" height="28" rx="6" fill="`).color(fill).s(`"/>`)
	b.s(`<text x="`).i(x + w/2).s(`" y="`).i(y + 19).s(`" font-size="15" font-weight="700" fill="#fff" text-anchor="middle">`).esc(label).s(`</text>`)
}

// Cover writes the cover of a work: a gradient from a hash of the pid, shapes,
// the title in large type and the authors. No badges: the store lays its own
// (section, 19, wait-for-free, deadline) over covers, as over real ones.
func Cover(w io.Writer, p *contract.Product) error {
	r := rng(hashString(0, p.PID))
	hue := r.intn(360)
	b := newBuf(3072)
	b.open(CoverW, CoverH)
	b.s(`<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="`).color(hsl(hue, 65, 55)).
		s(`"/><stop offset="1" stop-color="`).color(hsl(hue+50, 70, 25)).s(`"/></linearGradient></defs>`)
	b.s(`<rect width="`).i(CoverW).s(`" height="`).i(CoverH).s(`" fill="url(#g)"/>`)
	b.shapes(&r, CoverW, CoverH, hue+180, 6)
	lines := wrap(p.Title, 7, 4)
	size := 40
	y := CoverH/2 - (len(lines)-1)*(size+8)/2
	b.s(`<g font-size="`).i(size).s(`" font-weight="800" fill="#fff" stroke="#000" stroke-opacity=".35" stroke-width="4" paint-order="stroke" text-anchor="middle">`)
	for k, l := range lines {
		b.s(`<text x="`).i(CoverW / 2).s(`" y="`).i(y + k*(size+8)).s(`">`).esc(l).s(`</text>`)
	}
	b.s(`</g>`)
	if p.SubTitle != "" {
		b.s(`<text x="`).i(CoverW / 2).s(`" y="`).i(y + len(lines)*(size+8)).s(`" font-size="20" fill="#fff" text-anchor="middle">`).esc(p.SubTitle).s(`</text>`)
	}
	if a := authorLine(p); a != "" {
		b.s(`<text x="`).i(CoverW / 2).s(`" y="`).i(CoverH - 24).s(`" font-size="16" fill="#fff" fill-opacity=".85" text-anchor="middle">`).esc(a).s(`</text>`)
	}
	b.close()
	return b.write(w)
}

// Wide writes the wide (2:1) cover of a work: title and authors on the left,
// shapes on the right.
func Wide(w io.Writer, p *contract.Product) error {
	r := rng(hashString(0, p.PID))
	hue := r.intn(360)
	b := newBuf(3072)
	b.open(WideW, WideH)
	b.s(`<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="`).color(hsl(hue+50, 70, 22)).
		s(`"/><stop offset="1" stop-color="`).color(hsl(hue, 65, 55)).s(`"/></linearGradient></defs>`)
	b.s(`<rect width="`).i(WideW).s(`" height="`).i(WideH).s(`" fill="url(#g)"/>`)
	b.s(`<g transform="translate(`).i(WideW / 2).s(` 0)">`)
	b.shapes(&r, WideW/2, WideH, hue+180, 7)
	b.s(`</g>`)
	b.badge(28, 28, 52, hsl(hue+180, 60, 35), sectionLabel(p.Section))
	lines := wrap(p.Title, 9, 3)
	b.s(`<g font-size="36" font-weight="800" fill="#fff">`)
	for k, l := range lines {
		b.s(`<text x="28" y="`).i(120 + k*46).s(`">`).esc(l).s(`</text>`)
	}
	b.s(`</g>`)
	if a := authorLine(p); a != "" {
		b.s(`<text x="28" y="`).i(WideH - 32).s(`" font-size="18" fill="#fff" fill-opacity=".85">`).esc(a).s(`</text>`)
	}
	b.close()
	return b.write(w)
}

// Banner writes banner id with its title.
func Banner(w io.Writer, id int64, title string) error {
	return banner(w, rng(hashInts(0, int(id), 0x62616e)), "", title, "지금 보러 가기 ›")
}

// banner draws a 2:1 banner: gradient and shapes from r, an optional label
// chip, the title in two lines at most, and a call to action. Text keeps 40 px
// from every edge so a slot that crops a little never cuts it.
func banner(w io.Writer, r rng, label, title, action string) error {
	hue := r.intn(360)
	b := newBuf(3072)
	b.open(BannerW, BannerH)
	b.s(`<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="`).color(hsl(hue, 75, 50)).
		s(`"/><stop offset="1" stop-color="`).color(hsl(hue+40, 80, 35)).s(`"/></linearGradient></defs>`)
	b.s(`<rect width="`).i(BannerW).s(`" height="`).i(BannerH).s(`" fill="url(#g)"/>`)
	b.shapes(&r, BannerW, BannerH, hue+150, 8)
	top := 150
	if label != "" {
		lw := 24 + 22*utf8.RuneCountInString(label)
		b.s(`<rect x="40" y="48" width="`).i(lw).s(`" height="40" rx="20" fill="#fff" fill-opacity=".92"/>`)
		b.s(`<text x="`).i(40 + lw/2).s(`" y="75" font-size="20" font-weight="800" fill="`).color(hsl(hue+20, 70, 30)).s(`" text-anchor="middle">`).esc(label).s(`</text>`)
		top = 160
	}
	lines := wrap(title, 13, 2)
	b.s(`<g font-size="46" font-weight="800" fill="#fff" stroke="#000" stroke-opacity=".25" stroke-width="4" paint-order="stroke">`)
	for k, l := range lines {
		b.s(`<text x="40" y="`).i(top + k*60).s(`">`).esc(l).s(`</text>`)
	}
	b.s(`</g><text x="40" y="`).i(BannerH - 44).s(`" font-size="24" font-weight="700" fill="#fff">`).esc(action).s(`</text>`)
	b.close()
	return b.write(w)
}

// icon glyphs of the quick links; other names get their first letter.
var iconGlyphs = map[string]string{
	"todayup": "UP", "weekday": "요일", "original": "O", "benefit": "혜택", "best": "1위",
	"awards": "★", "jumpingpass": "»", "keyword": "#", "bluerun": "R", "cs": "?",
	"webtoon": "웹툰", "comic": "만화", "novel": "소설", "event": "E",
}

// Icon writes the round icon called name.
func Icon(w io.Writer, name string) error {
	r := rng(hashString(0, name))
	glyph, ok := iconGlyphs[name]
	if !ok {
		glyph = "·"
		if c, _ := utf8.DecodeRuneInString(name); c != utf8.RuneError {
			glyph = string(upper(c))
		}
	}
	size := 44
	if n := utf8.RuneCountInString(glyph); n > 1 {
		size = 64 / n
	}
	b := newBuf(640)
	b.open(IconSize, IconSize)
	b.s(`<rect width="96" height="96" rx="28" fill="`).color(hsl(r.intn(360), 70, 55)).s(`"/>`)
	b.s(`<text x="48" y="`).i(48 + size*36/100).s(`" font-size="`).i(size).s(`" font-weight="800" fill="#fff" text-anchor="middle">`).esc(glyph).s(`</text>`)
	b.close()
	return b.write(w)
}

func upper(r rune) rune {
	if r >= 'a' && r <= 'z' {
		return r - 'a' + 'A'
	}
	return r
}
