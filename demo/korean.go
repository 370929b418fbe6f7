package demo

import "unicode/utf8"

const (
	hangulFirst = 0xAC00
	hangulLast  = 0xD7A3
)

var choseongJamo = []rune("ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ")

// Choseong returns the initial consonants of the Hangul syllables of s, other
// characters unchanged except spaces, which are dropped ("검은 마법사" -> "ㄱㅇㅁㅂㅅ").
// It is what initial-consonant search matches against.
func Choseong(s string) string {
	out := make([]rune, 0, len(s)/3+1)
	for _, r := range s {
		switch {
		case r >= hangulFirst && r <= hangulLast:
			out = append(out, choseongJamo[(r-hangulFirst)/(21*28)])
		case r == ' ':
		default:
			out = append(out, r)
		}
	}
	return string(out)
}

// hasBatchim reports whether the last syllable of s ends in a consonant, which
// decides the particle form (은/는, 이/가, 과/와). Non-Hangul endings count as
// vowel endings except digits and letters that are read with a final consonant.
func hasBatchim(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	if r >= hangulFirst && r <= hangulLast {
		return (r-hangulFirst)%28 != 0
	}
	switch r {
	case '0', '1', '3', '6', '7', '8', 'L', 'M', 'N', 'R':
		return true
	}
	return false
}

// josa appends the right form of a particle pair: josa("검사", "은", "는") = "검사는".
func josa(word, withBatchim, without string) string {
	if hasBatchim(word) {
		return word + withBatchim
	}
	return word + without
}
