package search

import (
	"math/rand/v2"
	"testing"
)

// typoMatch is how the edge asks: the query gets tolerance, and some run
// of the title's jamo is one edit away.
func typoMatch(title, q string) bool {
	qk := Key(q)
	if !TypoQuery(qk) {
		return false
	}
	return WithinOneEdit(AppendJamo(nil, Key(title)), AppendJamo(nil, qk))
}

func TestTypoTolerance(t *testing.T) {
	cases := []struct {
		title, q string
		want     bool
		why      string
	}{
		{"귀멸의 칼날", "귀멸의 칼랄", true, "initial ㄴ→ㄹ: one substitution"},
		{"귀멸의 칼날", "귀멸의칼닐", true, "medial ㅏ→ㅣ"},
		{"귀멸의 칼날", "귀멸의 카날", true, "final ㄹ left out: one deletion"},
		{"귀멸의 칼날", "귀멸의 칼날들", false, "들 is three jamo too many"},
		{"귀멸의 칼날", "귀멸의 칼날ㅡ", true, "a stray vowel key: one insertion"},
		{"귀멸의 칼날", "귀멸의 칼랄랄", false, "two syllables wrong"},
		{"귀멸의 칼날", "귀멸이 칼랄", false, "two jamo substituted"},
		{"전지적 독자 시점", "전지젹 독자", true, "ㅓ→ㅕ"},
		{"전지적 독자 시점", "전짖적", true, "final inserted: one insertion"},
		{"나 혼자만 레벨업", "혼자먼 레벨", true, "ㅏ→ㅓ"},
		{"나 혼자만 레벨업", "혼자만레밸업", true, "ㅔ→ㅐ"},
		{"나 혼자만 레벨업", "혼잠나", false, "jamo moved across syllables: two edits"},
		{"이번 생은 악녀로 살겠습니다", "악녀루 살", true, "ㅗ→ㅜ"},
		{"이번 생은 악녀로 살겠습니다", "살곘습니다", true, "ㅔ→ㅖ"},
		{"귀멸의 칼날", "칼랄", false, "two syllables: too short for tolerance"},
		{"귀멸의 칼날", "ㄱㅁㅇㅋㄹ", false, "initial-consonant queries get none"},
		{"귀멸의 칼날", "귀ㅁ의칼랄", false, "a bare consonant turns tolerance off"},
		{"황녀님의 정원", "황녀넘의", true, "ㅣ→ㅓ"},
		{"갑시다 우리", "가비다", false, "a final moved to the next initial: two edits (ㅂ final and initial differ)"},
		{"달빛 조각사", "달빗조각사", true, "final ㅊ→ㅅ"},
		{"달빛 조각사", "닯빛조각사", true, "compound final ㄻ for ㄹ: one jamo"},
	}
	for _, c := range cases {
		if got := typoMatch(c.title, c.q); got != c.want {
			t.Errorf("typo(%q, %q) = %v, want %v (%s)", c.title, c.q, got, c.want, c.why)
		}
	}
}

func TestAppendJamo(t *testing.T) {
	got := string(AppendJamo(nil, Key("값 a")))
	if want := "\u1100\u1161\u11b9a"; got != want {
		t.Errorf("AppendJamo(값 a) = %q, want %q", got, want)
	}
}

func BenchmarkWithinOneEdit(b *testing.B) {
	text := AppendJamo(nil, Key("이번 생은 악녀로 살겠습니다 외전"))
	var p Pattern
	p.Compile(AppendJamo(nil, Key("악녀루 살겠")))
	b.ReportAllocs()
	for b.Loop() {
		p.WithinOneEdit(text)
	}
}

// withinOneEditTable is the edit-distance table itself (Sellers), the
// oracle of the bit-vector match.
func withinOneEditTable(text, pat []rune) bool {
	m := len(pat)
	if m == 0 || m > MaxTypoJamo {
		return false
	}
	col := make([]int, m+1)
	for i := range col {
		col[i] = i
	}
	if col[m] <= 1 {
		return true
	}
	for _, c := range text {
		diag := 0
		for i := 1; i <= m; i++ {
			up := col[i]
			best := diag
			if pat[i-1] != c {
				best++
			}
			best = min(best, up+1, col[i-1]+1)
			col[i], diag = best, up
		}
		if col[m] <= 1 {
			return true
		}
	}
	return false
}

func TestWithinOneEditMatchesTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 4))
	alphabet := AppendJamo(nil, Key("가날칼각ㅋa"))
	gen := func(n int) []rune {
		out := make([]rune, n)
		for i := range out {
			out[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return out
	}
	hits := 0
	for range 20_000 {
		text, pat := gen(rng.IntN(20)), gen(1+rng.IntN(MaxTypoJamo+2))
		if rng.IntN(2) == 0 && len(text) > 2 {
			pat = append([]rune(nil), text[rng.IntN(len(text)/2):]...)
			if len(pat) > 1 {
				pat[rng.IntN(len(pat))] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		want := withinOneEditTable(text, pat)
		if got := WithinOneEdit(text, pat); got != want {
			t.Fatalf("WithinOneEdit(%q, %q) = %v, want %v", string(text), string(pat), got, want)
		}
		if want {
			hits++
		}
	}
	if hits < 1000 {
		t.Fatalf("only %d matches: the test does not exercise them", hits)
	}
}
