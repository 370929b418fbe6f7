package search

// Typo tolerance works on jamo, not syllables: "칼랄" for "칼날" is one
// wrong consonant, but as syllables it is a whole wrong letter, and a
// missing final ("가비다" for "갑시다") changes two syllables while being
// one key press. A syllable is decomposed into its initial, medial and
// (when there is one) final jamo; a compound vowel or final (ㅘ, ㄺ) is
// one jamo, as on a two-set keyboard it is what one position of the
// syllable holds.
//
// The rule (documented in edge/README.md): a query of at least
// TypoMinSyllables Hangul syllables, with no bare consonant (initial
// consonant queries are loose already), matches a title when some run
// of the title's jamo is within one substitution, insertion or deletion
// of the query's jamo. Such hits rank below every exact hit.

// TypoMinSyllables is the shortest query (in Hangul syllables) given typo
// tolerance: with two, one edit reaches too many titles to be useful.
const TypoMinSyllables = 3

// MaxTypoJamo bounds the query's jamo for typo matching (a typed title,
// not a paragraph); longer queries are matched exactly only.
const MaxTypoJamo = 60

const (
	jamoL = 0x1100 // conjoining initial consonants
	jamoV = 0x1161 // medials
	jamoT = 0x11A7 // finals (index 0 = none)
)

// AppendJamo appends key's jamo to dst: each syllable as its initial,
// medial and final (conjoining jamo), every other rune as it is.
func AppendJamo(dst, key []rune) []rune {
	for _, r := range key {
		if r < syllableFirst || r > syllableLast {
			dst = append(dst, r)
			continue
		}
		s := r - syllableFirst
		dst = append(dst, jamoL+s/perInitial, jamoV+(s%perInitial)/28)
		if t := s % 28; t != 0 {
			dst = append(dst, jamoT+t)
		}
	}
	return dst
}

// IsSyllable reports whether r is a precomposed Hangul syllable.
func IsSyllable(r rune) bool { return r >= syllableFirst && r <= syllableLast }

// TypoQuery reports whether a query key gets typo tolerance: enough
// syllables and no bare initial consonant.
func TypoQuery(q []rune) bool {
	n := 0
	for _, r := range q {
		if IsConsonant(r) {
			return false
		}
		if IsSyllable(r) {
			n++
		}
	}
	return n >= TypoMinSyllables
}

// Pattern is a query's jamo compiled for WithinOneEdit: Myers' bit-vector
// edit distance, one machine word per text jamo, since it runs on every
// candidate title of a query.
type Pattern struct {
	m int
	// peq[c]: bit i set when the pattern's i-th jamo is c, for conjoining
	// jamo (0x1100–0x11FF); other runes are looked up in more.
	peq  [256]uint64
	more []runeMask
}

type runeMask struct {
	r    rune
	mask uint64
}

// Compile prepares pat (from AppendJamo, at most MaxTypoJamo) for matching,
// reusing p's memory; false when pat is empty or too long.
func (p *Pattern) Compile(pat []rune) bool {
	clear(p.peq[:])
	p.more = p.more[:0]
	p.m = len(pat)
	if p.m == 0 || p.m > MaxTypoJamo {
		return false
	}
	for i, r := range pat {
		bit := uint64(1) << i
		if r >= 0x1100 && r <= 0x11FF {
			p.peq[r-0x1100] |= bit
			continue
		}
		k := 0
		for k < len(p.more) && p.more[k].r != r {
			k++
		}
		if k == len(p.more) {
			p.more = append(p.more, runeMask{r: r})
		}
		p.more[k].mask |= bit
	}
	return true
}

func (p *Pattern) eq(r rune) uint64 {
	if r >= 0x1100 && r <= 0x11FF {
		return p.peq[r-0x1100]
	}
	for _, x := range p.more {
		if x.r == r {
			return x.mask
		}
	}
	return 0
}

// WithinOneEdit reports whether some run of text (from AppendJamo) is at
// most one jamo substitution, insertion or deletion away from the compiled
// pattern. It allocates nothing.
func (p *Pattern) WithinOneEdit(text []rune) bool {
	m := p.m
	if m == 0 {
		return false
	}
	if m <= 1 {
		return true // deleting the one jamo leaves the empty run
	}
	// Myers (1999): the columns of the edit-distance table as bit vectors
	// of +1/-1 vertical differences; a run may start anywhere, so the top
	// row stays 0 (no carry into bit 0 of Ph).
	pv, mv := ^uint64(0), uint64(0)
	score := m
	hb := uint64(1) << (m - 1)
	for _, c := range text {
		eq := p.eq(c)
		xv := eq | mv
		xh := (((eq & pv) + pv) ^ pv) | eq
		ph := mv | ^(xh | pv)
		mh := pv & xh
		if ph&hb != 0 {
			score++
		} else if mh&hb != 0 {
			score--
		}
		ph <<= 1
		mh <<= 1
		pv = mh | ^(xv | ph)
		mv = ph & xv
		if score <= 1 {
			return true
		}
	}
	return false
}

// WithinOneEdit is Pattern.WithinOneEdit for a one-off match (tests, tools):
// it compiles pat each call.
func WithinOneEdit(text, pat []rune) bool {
	var p Pattern
	return p.Compile(pat) && p.WithinOneEdit(text)
}
