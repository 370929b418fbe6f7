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

// WithinOneEdit reports whether some run of text is at most one jamo
// substitution, insertion or deletion away from pat (both from
// AppendJamo). It is Sellers' approximate substring match, stopped at the
// first column within one edit; pat longer than MaxTypoJamo never matches.
// It allocates nothing.
func WithinOneEdit(text, pat []rune) bool {
	m := len(pat)
	if m == 0 || m > MaxTypoJamo {
		return false
	}
	// col[i]: fewest edits turning pat[:i] into a run of text ending here;
	// a run may start anywhere, so row 0 stays 0.
	var col [MaxTypoJamo + 1]int
	for i := range m + 1 {
		col[i] = i
	}
	if col[m] <= 1 {
		return true
	}
	for _, c := range text {
		diag := col[0] // 0
		for i := 1; i <= m; i++ {
			up := col[i]
			best := diag
			if pat[i-1] != c {
				best++
			}
			if v := up + 1; v < best {
				best = v
			}
			if v := col[i-1] + 1; v < best {
				best = v
			}
			col[i], diag = best, up
		}
		if col[m] <= 1 {
			return true
		}
	}
	return false
}
