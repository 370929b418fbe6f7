package art

import (
	"io"

	"storefront/contract"
)

var dialogs = []string{
	"여기가 어디지...?", "드디어 찾았다!", "그건 내 검이야.", "말도 안 돼!", "오늘부터 1일이야.", "조심해!",
	"너 누구야?", "다시 돌아왔다.", "이번엔 다를 거야.", "배고파...", "시스템 창이 떴다!", "레벨 업!",
	"흥, 그게 다야?", "미안해, 늦었지?", "약속했잖아.", "도망쳐!", "이 계약, 없던 걸로 하죠.", "설마 너...",
	"괜찮아, 내가 있잖아.", "지금 웃음이 나와?", "누나, 나 좀 봐.", "전하, 명을 거두어 주십시오!", "여기서부터는 내 영역이다.", "...좋아해.",
	"퇴근하고 싶다.", "이게 무슨 냄새지?", "<비밀> 이라고 적혀 있어.", "\"그\"가 돌아왔어.", "쾅!", "두근",
}

var narrations = []string{
	"그날 밤, 모든 것이 바뀌었다.", "다음 날 아침.", "한편, 황궁에서는...", "3년 후.", "그리고 그때였다.", "아무도 몰랐다.",
}

// Page writes page n (from 1) of volume vol of a work: a tall strip of panels for
// a webtoon, a grid of panels for a comic, an illustration for a novel.
func Page(w io.Writer, p *contract.Product, vol, n int) error {
	r := rng(hashInts(hashString(0, p.PID), vol, n))
	switch p.Section {
	case contract.SectionWebtoon:
		return strip(w, p, &r, vol, n)
	case contract.SectionComic:
		return comicPage(w, p, &r, vol, n)
	}
	return illustration(w, p, &r, vol, n)
}

func strip(w io.Writer, p *contract.Product, r *rng, vol, n int) error {
	b := newBuf(8192)
	b.open(StripW, StripH)
	b.s(`<rect width="`).i(StripW).s(`" height="`).i(StripH).s(`" fill="#fff"/>`)
	panels := r.between(2, 3)
	gutter := 80
	avail := StripH - 140 - gutter*(panels-1)
	y := 40
	for k := range panels {
		h := avail / panels
		if k == panels-1 {
			h = avail - (avail/panels)*(panels-1)
		}
		x, pw := 0, StripW
		if r.intn(3) == 0 {
			x, pw = 40, StripW-80 // a framed panel between full-bleed ones
		}
		b.scene(r, x, y, pw, h, true)
		y += h + gutter
	}
	b.caption(p, vol, n, StripW, StripH-30)
	b.close()
	return b.write(w)
}

func comicPage(w io.Writer, p *contract.Product, r *rng, vol, n int) error {
	b := newBuf(8192)
	b.open(PageW, PageH)
	b.s(`<rect width="`).i(PageW).s(`" height="`).i(PageH).s(`" fill="#fff"/>`)
	const margin, gap = 28, 14
	rows := r.between(2, 3)
	inner := PageH - 2*margin - 40 - gap*(rows-1)
	y := margin
	for k := range rows {
		h := inner / rows
		if k == rows-1 {
			h = inner - (inner/rows)*(rows-1)
		}
		cols := r.between(1, 2)
		cw := PageW - 2*margin
		if cols == 2 {
			split := r.between(35, 65) * (cw - gap) / 100
			b.scene(r, margin, y, split, h, false)
			b.scene(r, margin+split+gap, y, cw-split-gap, h, false)
		} else {
			b.scene(r, margin, y, cw, h, false)
		}
		y += h + gap
	}
	b.caption(p, vol, n, PageW, PageH-18)
	b.close()
	return b.write(w)
}

func illustration(w io.Writer, p *contract.Product, r *rng, vol, n int) error {
	b := newBuf(4096)
	b.open(PageW, PageH)
	b.s(`<rect width="`).i(PageW).s(`" height="`).i(PageH).s(`" fill="#faf7f0"/>`)
	b.scene(r, 60, 60, PageW-120, PageH-220, true)
	lines := wrap(p.Title, 14, 2)
	for k, l := range lines {
		b.s(`<text x="`).i(PageW / 2).s(`" y="`).i(PageH - 120 + k*36).s(`" font-size="28" font-weight="700" fill="#333" text-anchor="middle">`).esc(l).s(`</text>`)
	}
	b.caption(p, vol, n, PageW, PageH-24)
	b.close()
	return b.write(w)
}

// caption writes the small "title · 3화 · 2" line at the bottom of a page.
func (b *buf) caption(p *contract.Product, vol, n, w, y int) {
	b.s(`<text x="`).i(w / 2).s(`" y="`).i(y).s(`" font-size="16" fill="#999" text-anchor="middle">`).esc(p.Title).s(" · ").i(vol)
	if p.Unit != "" {
		b.esc(p.Unit)
	}
	b.s(" · ").i(n).s(`</text>`)
}

// scene draws one panel: sky, ground, a sun or moon, one or two people and a
// speech bubble or a narration box. Colour for webtoons, grey tones for comics.
func (b *buf) scene(r *rng, x, y, w, h int, colour bool) {
	hue := r.intn(360)
	sky, ground, line := hsl(hue, 55, 80), hsl(hue+120, 35, 55), rgb{0x22, 0x22, 0x22}
	if !colour {
		g := uint8(r.between(215, 245))
		sky, ground = rgb{g, g, g}, rgb{g - 70, g - 70, g - 70}
	}
	b.s(`<svg x="`).i(x).s(`" y="`).i(y).s(`" width="`).i(w).s(`" height="`).i(h).s(`" viewBox="0 0 `).i(w).s(" ").i(h).s(`">`)
	b.s(`<rect width="`).i(w).s(`" height="`).i(h).s(`" fill="`).color(sky).s(`"/>`)
	horizon := h * r.between(60, 75) / 100
	b.s(`<rect y="`).i(horizon).s(`" width="`).i(w).s(`" height="`).i(h - horizon).s(`" fill="`).color(ground).s(`"/>`)
	orb := hsl(45, 90, 65)
	if !colour {
		orb = rgb{0xff, 0xff, 0xff}
	}
	b.s(`<circle cx="`).i(r.between(w/10, w*9/10)).s(`" cy="`).i(r.between(h/10, h/3)).s(`" r="`).i(r.between(20, 50)).
		s(`" fill="`).color(orb).s(`" stroke="`).color(line).s(`" stroke-width="2"/>`)
	people := r.between(1, 2)
	scale := min(w, h) / 8
	for k := range people {
		cx := w * (k*2 + 1) / (people * 2)
		cx += r.between(-w/10, w/10)
		b.person(r, cx, horizon, scale, colour, line)
	}
	if r.intn(4) == 0 {
		text := narrations[r.intn(len(narrations))]
		b.s(`<rect x="12" y="12" width="`).i(min(w-24, 24*len([]rune(text))+32)).s(`" height="44" fill="#fffbe6" stroke="`).color(line).s(`" stroke-width="2"/>`)
		b.s(`<text x="28" y="42" font-size="22" fill="#222">`).esc(text).s(`</text>`)
	} else {
		b.bubble(r, w, h, line)
	}
	b.s(`<rect width="`).i(w).s(`" height="`).i(h).s(`" fill="none" stroke="`).color(line).s(`" stroke-width="4"/></svg>`)
}

func (b *buf) person(r *rng, cx, ground, s int, colour bool, line rgb) {
	skin, hair, cloth := hsl(30, 60, 80), hsl(r.intn(360), 45, 30), hsl(r.intn(360), 55, 50)
	if !colour {
		skin, hair, cloth = rgb{0xfa, 0xfa, 0xfa}, rgb{0x33, 0x33, 0x33}, rgb{0x88, 0x88, 0x88}
	}
	head := s * 3 / 4
	bodyH := s * 2
	top := ground - bodyH - head*2 + s/3
	b.s(`<rect x="`).i(cx - s*3/4).s(`" y="`).i(top + head*2 - s/4).s(`" width="`).i(s * 3 / 2).s(`" height="`).i(bodyH).
		s(`" rx="`).i(s / 2).s(`" fill="`).color(cloth).s(`" stroke="`).color(line).s(`" stroke-width="3"/>`)
	b.s(`<circle cx="`).i(cx).s(`" cy="`).i(top + head).s(`" r="`).i(head).s(`" fill="`).color(skin).s(`" stroke="`).color(line).s(`" stroke-width="3"/>`)
	b.s(`<path d="M`).i(cx - head).s(" ").i(top + head).s(" A").i(head).s(" ").i(head).s(" 0 0 1 ").i(cx + head).s(" ").i(top + head).
		s(" L").i(cx + head*3/4).s(" ").i(top + head*2/3).s(" L").i(cx - head*3/4).s(" ").i(top + head*2/3).s(` Z" fill="`).color(hair).s(`"/>`)
	eye := max(2, head/8)
	for _, dx := range []int{-head / 3, head / 3} {
		b.s(`<circle cx="`).i(cx + dx).s(`" cy="`).i(top + head + head/6).s(`" r="`).i(eye).s(`" fill="#222"/>`)
	}
}

func (b *buf) bubble(r *rng, w, h int, line rgb) {
	text := dialogs[r.intn(len(dialogs))]
	lines := wrap(text, 9, 3)
	fs := max(18, min(30, w/18))
	bw := 0
	for _, l := range lines {
		bw = max(bw, len([]rune(l))*fs)
	}
	rx := bw/2 + fs
	ry := len(lines)*(fs+6)/2 + fs*2/3
	cx := r.between(min(rx+8, w/2), max(w-rx-8, w/2))
	cy := min(ry+12, h/2)
	b.s(`<path d="M`).i(cx - fs/2).s(" ").i(cy + ry - 4).s(" L").i(cx + r.between(-fs*2, fs*2)).s(" ").i(cy + ry + fs*2).s(" L").i(cx + fs/2).s(" ").i(cy + ry - 4).
		s(` Z" fill="#fff" stroke="`).color(line).s(`" stroke-width="3"/>`)
	b.s(`<ellipse cx="`).i(cx).s(`" cy="`).i(cy).s(`" rx="`).i(rx).s(`" ry="`).i(ry).s(`" fill="#fff" stroke="`).color(line).s(`" stroke-width="3"/>`)
	y0 := cy - (len(lines)-1)*(fs+6)/2 + fs/3
	b.s(`<g font-size="`).i(fs).s(`" font-weight="700" fill="#222" text-anchor="middle">`)
	for k, l := range lines {
		b.s(`<text x="`).i(cx).s(`" y="`).i(y0 + k*(fs+6)).s(`">`).esc(l).s(`</text>`)
	}
	b.s(`</g>`)
}
