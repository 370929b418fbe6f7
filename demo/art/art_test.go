package art_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"storefront/contract"
	"storefront/demo/art"
)

func product(pid, section, title string) *contract.Product {
	unit := "화"
	if section == contract.SectionComic {
		unit = "권"
	}
	return &contract.Product{
		PID: pid, Section: section, Title: title, Unit: unit, Age: 15, SubTitle: "시즌2",
		Authors: []contract.Author{{AuthorID: 1, AuthorName: "달빛고양이", IsWriter: true}, {AuthorID: 2, AuthorName: "김서윤", IsPainter: true}},
	}
}

// nasty is a title that breaks naive SVG building.
const nasty = "<script>alert(\"x\")</script> & 'quotes' \x01\x7f \xff 검은 마법사의 아주아주 기나긴 제목 ]]> 끝"

type render struct {
	name string
	w, h int
	fn   func(io.Writer) error
}

func renders(p *contract.Product) []render {
	return []render{
		{"cover", art.CoverW, art.CoverH, func(w io.Writer) error { return art.Cover(w, p) }},
		{"wide", art.WideW, art.WideH, func(w io.Writer) error { return art.Wide(w, p) }},
		{"banner", art.BannerW, art.BannerH, func(w io.Writer) error { return art.Banner(w, 7, p.Title) }},
		{"event", art.BannerW, art.BannerH, func(w io.Writer) error { return art.EventBanner(w, 1001, contract.EventBluerun, p.Title) }},
		{"icon", art.IconSize, art.IconSize, func(w io.Writer) error { return art.Icon(w, p.Title) }},
		{"page1", 0, 0, func(w io.Writer) error { return art.Page(w, p, 3, 1) }},
		{"page5", 0, 0, func(w io.Writer) error { return art.Page(w, p, 120, 5) }},
	}
}

// parse checks doc is well-formed XML with an <svg> root of the given size and
// returns its character data.
func parse(t *testing.T, doc []byte, w, h int) string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	var text strings.Builder
	root := true
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("invalid XML: %v\n%s", err, doc)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if root {
				root = false
				if e.Name.Local != "svg" || e.Name.Space != "http://www.w3.org/2000/svg" {
					t.Fatalf("root %v", e.Name)
				}
				attrs := map[string]string{}
				for _, a := range e.Attr {
					attrs[a.Name.Local] = a.Value
				}
				if w > 0 && (attrs["width"] != fmt.Sprint(w) || attrs["height"] != fmt.Sprint(h)) {
					t.Fatalf("size %sx%s, want %dx%d", attrs["width"], attrs["height"], w, h)
				}
			}
		case xml.CharData:
			text.Write(e)
		}
	}
	if root {
		t.Fatal("no root element")
	}
	return text.String()
}

func TestImagesAreValidDeterministicSVG(t *testing.T) {
	t.Parallel()
	for _, sec := range []string{contract.SectionWebtoon, contract.SectionComic, contract.SectionNovel} {
		for k := range 20 {
			p := product(fmt.Sprintf("%s%06d", strings.ToLower(sec[:2]), k), sec, "검은 마법사의 귀환")
			if k%3 == 0 {
				p.Age = 19
			}
			for _, r := range renders(p) {
				var a, b bytes.Buffer
				if err := r.fn(&a); err != nil {
					t.Fatal(err)
				}
				if err := r.fn(&b); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Fatalf("%s of %s differs between calls", r.name, p.PID)
				}
				text := parse(t, a.Bytes(), r.w, r.h)
				if r.name == "cover" && !strings.Contains(text, "검은") {
					t.Fatalf("cover text %q lacks the title", text)
				}
				if a.Len() > 40<<10 {
					t.Fatalf("%s of %s is %d bytes", r.name, p.PID, a.Len())
				}
			}
		}
	}
}

func TestPagesDifferByWorkVolumeAndPage(t *testing.T) {
	t.Parallel()
	render := func(pid string, vol, n int) string {
		var b bytes.Buffer
		if err := art.Page(&b, product(pid, contract.SectionWebtoon, "제목"), vol, n); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	base := render("wt000001", 1, 1)
	for _, other := range []string{render("wt000002", 1, 1), render("wt000001", 2, 1), render("wt000001", 1, 2)} {
		if other == base {
			t.Fatal("different pages rendered the same")
		}
	}
	var c1, c2 bytes.Buffer
	art.Cover(&c1, product("wt000001", contract.SectionWebtoon, "제목"))
	art.Cover(&c2, product("wt000002", contract.SectionWebtoon, "제목"))
	if c1.String() == c2.String() {
		t.Fatal("covers of different works are the same")
	}
}

func TestPageKindBySection(t *testing.T) {
	t.Parallel()
	for sec, want := range map[string]string{
		contract.SectionWebtoon: fmt.Sprintf(`height="%d"`, art.StripH),
		contract.SectionComic:   fmt.Sprintf(`height="%d"`, art.PageH),
		contract.SectionNovel:   fmt.Sprintf(`height="%d"`, art.PageH),
	} {
		var b bytes.Buffer
		if err := art.Page(&b, product("x1", sec, "제목"), 1, 1); err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(b.String(), ">")
		if !strings.Contains(first, want) {
			t.Fatalf("%s page root %s, want %s", sec, first, want)
		}
	}
}

func TestTextIsEscaped(t *testing.T) {
	t.Parallel()
	p := product("wt000009", contract.SectionWebtoon, nasty)
	p.SubTitle = `"sub" & <b>`
	p.Authors[0].AuthorName = "<a href='x'>작가</a>"
	for _, r := range renders(p) {
		var b bytes.Buffer
		if err := r.fn(&b); err != nil {
			t.Fatal(err)
		}
		doc := b.String()
		if strings.Contains(doc, "<script") || strings.Contains(doc, "<b>") || strings.Contains(doc, "<a ") {
			t.Fatalf("%s: markup from product text leaked:\n%s", r.name, doc)
		}
		text := parse(t, b.Bytes(), r.w, r.h)
		if !utf8.ValidString(doc) {
			t.Fatalf("%s: invalid UTF-8", r.name)
		}
		if r.name == "cover" && (!strings.Contains(text, "<script>") || !strings.Contains(text, `"sub" & <b>`) || !strings.Contains(text, "<a href='x'>작가</a>")) {
			t.Fatalf("cover text does not read back: %q", text)
		}
	}
}

func TestTitleWrapsAndTruncates(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("아주긴제목", 20)
	var b bytes.Buffer
	if err := art.Cover(&b, product("wt1", contract.SectionWebtoon, long)); err != nil {
		t.Fatal(err)
	}
	text := parse(t, b.Bytes(), art.CoverW, art.CoverH)
	if !strings.Contains(text, "…") || strings.Contains(text, long) {
		t.Fatalf("long title not cut: %q", text)
	}
}

func TestIcons(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"todayup", "weekday", "awards", "cs", "unknown", "", "<x>", "한글"} {
		var b bytes.Buffer
		if err := art.Icon(&b, name); err != nil {
			t.Fatal(err)
		}
		parse(t, b.Bytes(), art.IconSize, art.IconSize)
	}
}

func TestNovelText(t *testing.T) {
	t.Parallel()
	p := product("eb000001", contract.SectionNovel, "달빛 편의점")
	read := func(p *contract.Product, vol, n int) string {
		var b bytes.Buffer
		if err := art.Text(&b, p, vol, n); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	first := read(p, 3, 1)
	if first != read(p, 3, 1) {
		t.Fatal("text differs between calls")
	}
	if !strings.HasPrefix(first, "달빛 편의점 3화\n\n") {
		t.Fatalf("first chunk starts %q", first[:40])
	}
	second := read(p, 3, 2)
	if strings.HasPrefix(second, "달빛 편의점") || second == first || second == read(p, 4, 2) {
		t.Fatal("chunks are not distinct")
	}
	if read(product("eb000002", contract.SectionNovel, "달빛 편의점"), 3, 2) == second {
		t.Fatal("two works share their text")
	}
	for _, s := range []string{first, second} {
		if !utf8.ValidString(s) || len(s) < 1000 || len(s) > 12000 || strings.ContainsAny(s, "AB") {
			t.Fatalf("bad chunk (%d bytes): %q", len(s), s)
		}
		if n := strings.Count(s, "\n\n"); n < 9 {
			t.Fatalf("%d paragraph breaks", n)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("gone") }

func TestWriteErrorsAreReturned(t *testing.T) {
	t.Parallel()
	p := product("cm000001", contract.SectionComic, "제목")
	for _, r := range renders(p) {
		if err := r.fn(failWriter{}); err == nil {
			t.Fatalf("%s: no error from a failing writer", r.name)
		}
	}
	if err := art.Text(failWriter{}, p, 1, 1); err == nil {
		t.Fatal("text: no error from a failing writer")
	}
}

func BenchmarkCover(b *testing.B) {
	p := product("wt000123", contract.SectionWebtoon, "나 혼자만 만렙 검사의 귀환")
	b.ReportAllocs()
	for b.Loop() {
		art.Cover(io.Discard, p)
	}
}

func BenchmarkWebtoonStrip(b *testing.B) {
	p := product("wt000123", contract.SectionWebtoon, "나 혼자만 만렙 검사의 귀환")
	b.ReportAllocs()
	for b.Loop() {
		art.Page(io.Discard, p, 12, 3)
	}
}

func BenchmarkComicPage(b *testing.B) {
	p := product("cm000123", contract.SectionComic, "검마전")
	b.ReportAllocs()
	for b.Loop() {
		art.Page(io.Discard, p, 2, 7)
	}
}

func BenchmarkNovelText(b *testing.B) {
	p := product("eb000123", contract.SectionNovel, "달빛 편의점")
	b.ReportAllocs()
	for b.Loop() {
		art.Text(io.Discard, p, 5, 2)
	}
}

// TestCoversCarryNoBadges: the store lays section, 19 and coupon badges over
// covers; badges drawn into the picture would sit under them.
func TestCoversCarryNoBadges(t *testing.T) {
	t.Parallel()
	p := product("wt000001", contract.SectionWebtoon, "달빛 아래")
	p.Age = 19
	var b bytes.Buffer
	if err := art.Cover(&b, p); err != nil {
		t.Fatal(err)
	}
	text := parse(t, b.Bytes(), art.CoverW, art.CoverH)
	if strings.Contains(text, "웹툰") || strings.Contains(text, "19") {
		t.Fatalf("cover text %q has a badge", text)
	}
}

func TestEventBannersNameTheirKind(t *testing.T) {
	t.Parallel()
	draw := func(eid int64, kind, title string) string {
		var b bytes.Buffer
		if err := art.EventBanner(&b, eid, kind, title); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for kind, label := range map[string]string{contract.EventBluerun: "블루런", contract.EventDoubleCoupon: "더블쿠폰",
		contract.EventHoneyBenefit: "꿀혜택", contract.EventHeroism: "작가전", contract.EventTicket: "이용권",
		contract.EventJoin: "가입 혜택", contract.EventFirstCharge: "첫 충전", "other": "이벤트"} {
		doc := draw(1001, kind, "제목")
		if text := parse(t, []byte(doc), art.BannerW, art.BannerH); !strings.HasPrefix(text, label) || !strings.Contains(text, "제목") {
			t.Errorf("%s: text %q", kind, text)
		}
	}
	if draw(1001, contract.EventBluerun, "a") == draw(1002, contract.EventBluerun, "a") {
		t.Error("two events look the same")
	}
	if doc := draw(1, contract.EventBluerun, `<script>&"`); !strings.Contains(doc, "&lt;script&gt;&amp;") {
		t.Errorf("title not escaped: %s", doc)
	}
}
