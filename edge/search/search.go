// Package search matches Korean titles and author names the way readers type
// them: spaces do not matter ("귀멸의칼날" finds "귀멸의 칼날"), Latin letters
// ignore case, and a Hangul initial consonant in the query matches any syllable
// starting with it ("ㄱㅁ" finds "귀멸…", "귀ㅁ" too).
//
// Key is computed once per title when a document arrives; Match runs per query
// over those keys and allocates nothing.
package search

import (
	"unicode"
	"unicode/utf8"
)

// choseong are the compatibility jamo of the 19 initial consonants, in the
// order of the Unicode syllable composition formula.
var choseong = [19]rune{'ㄱ', 'ㄲ', 'ㄴ', 'ㄷ', 'ㄸ', 'ㄹ', 'ㅁ', 'ㅂ', 'ㅃ', 'ㅅ', 'ㅆ', 'ㅇ', 'ㅈ', 'ㅉ', 'ㅊ', 'ㅋ', 'ㅌ', 'ㅍ', 'ㅎ'}

const (
	syllableFirst = 0xAC00
	syllableLast  = 0xD7A3
	// 21 medial vowels × 28 finals per initial consonant.
	perInitial = 21 * 28
)

// Initial returns the initial consonant (compatibility jamo) of a Hangul
// syllable, or 0 when r is not one.
func Initial(r rune) rune {
	if r < syllableFirst || r > syllableLast {
		return 0
	}
	return choseong[(r-syllableFirst)/perInitial]
}

// IsConsonant reports whether r is a compatibility jamo initial consonant.
func IsConsonant(r rune) bool {
	for _, c := range choseong {
		if c == r {
			return true
		}
	}
	return false
}

// Key normalizes s for matching: no spaces or punctuation, lower case.
func Key(s string) []rune {
	out := make([]rune, 0, utf8.RuneCountInString(s))
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) {
			continue
		}
		out = append(out, unicode.ToLower(r))
	}
	return out
}

// Initials returns the initial-consonant form of a key ("귀멸의칼날" -> "ㄱㅁㅇㅋㄴ");
// runes that are not syllables stay as they are.
func Initials(key []rune) []rune {
	out := make([]rune, len(key))
	for i, r := range key {
		if c := Initial(r); c != 0 {
			out[i] = c
		} else {
			out[i] = r
		}
	}
	return out
}

// Match reports where query q occurs in key k (both from Key), or -1. A
// consonant in q matches a syllable of k starting with it.
func Match(k, q []rune) int {
	if len(q) == 0 {
		return -1
	}
	for i := 0; i+len(q) <= len(k); i++ {
		ok := true
		for j, qr := range q {
			kr := k[i+j]
			if kr == qr {
				continue
			}
			if Initial(kr) == qr {
				continue
			}
			ok = false
			break
		}
		if ok {
			return i
		}
	}
	return -1
}
