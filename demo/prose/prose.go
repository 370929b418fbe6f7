// Package prose writes the demo novels' text: Korean prose that never repeats
// a sentence within a work. Each sentence position of a work (volume, chunk,
// sentence) has a distinct number; a bijection of [0, Capacity) turns it into
// a distinct sentence of the space the word lists span, so uniqueness holds by
// construction rather than by luck. The text of a chunk is a pure function of
// the product, volume and chunk, as the edge renders it on request.
package prose

import (
	"io"
	"unicode/utf8"

	"storefront/contract"
)

// SentencesPerChunk is how many sentences one text chunk holds.
const SentencesPerChunk = 30

// Sentence families and the size of each one's space.
var (
	sizeScene   = len(times) * 2 * len(places) * len(acts)
	sizeObject  = 2 * len(objects) * len(hows) * len(handles)
	sizeSetting = len(places) * len(things) * len(descs)
	sizeSpeech  = len(lines) * 2 * len(manners) * len(sayVerbs)
	sizeFeeling = 2 * len(causes) * len(feelings)
)

// Capacity is how many distinct sentences there are: a work whose chunks
// hold more sentence positions than this (Capacity / SentencesPerChunk
// chunks, several thousand volumes) would repeat.
var Capacity = sizeScene + sizeObject + sizeSetting + sizeSpeech + sizeFeeling

// step is coprime with Capacity (checked by the tests); multiplying by it
// scatters consecutive positions over the whole space, so neighbouring
// sentences come from different families and words.
var step = coprimeStep(Capacity)

func coprimeStep(n int) int {
	for s := n*61/100 | 1; ; s += 2 {
		if gcd(s, n) == 1 {
			return s
		}
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

var nameSyllables = []string{
	"서", "윤", "하", "준", "민", "지", "도", "은", "시", "우", "연", "주", "태", "린", "율", "온", "현", "채", "건", "설",
}

func fnv(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// maxChunksUnknown is what a volume missing from the product's list counts
// as: more than any demo volume holds, so positions stay distinct.
const maxChunksUnknown = 16

// Position returns the sentence position of sentence k (from 0) of chunk n
// (from 1) of volume vol (from 1): chunks are numbered densely across the
// work's volumes in order, so the numbers of a work are distinct and start at 0.
func Position(p *contract.Product, vol, n, k int) int {
	chunks := 0
	for i := 0; i < vol-1; i++ {
		if i < len(p.Volumes) {
			chunks += max(1, p.Volumes[i].Pages)
		} else {
			chunks += maxChunksUnknown // a volume the document does not list
		}
	}
	return (chunks+n-1)*SentencesPerChunk + k
}

// Sentence returns the sentence at a position of the work (leads a and b).
func Sentence(pid string, pos int, a, b string) string {
	x := (pos%Capacity*step + int(fnv(pid)%uint64(Capacity))) % Capacity
	return string(appendSentence(nil, x, a, b))
}

// Leads returns the two leads' names of a work.
func Leads(pid string) (a, b string) {
	h := fnv(pid)
	pick := func() string {
		s := nameSyllables[h%uint64(len(nameSyllables))]
		h /= uint64(len(nameSyllables))
		return s
	}
	a = pick() + pick()
	b = pick() + pick()
	for b == a {
		b = pick() + pick()
	}
	return a, b
}

// Text writes text chunk n (from 1) of volume vol of a novel. The first
// chunk starts with the volume heading; sentences come in paragraphs of two
// to four.
func Text(w io.Writer, p *contract.Product, vol, n int) error {
	a, b := Leads(p.PID)
	out := make([]byte, 0, 6144)
	if n == 1 {
		out = append(out, p.Title...)
		out = append(out, ' ')
		out = appendInt(out, vol)
		if p.Unit == "권" {
			out = append(out, "권\n\n"...)
		} else {
			out = append(out, "화\n\n"...)
		}
	}
	first := Position(p, vol, n, 0)
	seed := fnv(p.PID) ^ uint64(first)*0x9E3779B97F4A7C15
	off := int(fnv(p.PID) % uint64(Capacity))
	inPara := 0
	paraLen := 2 + int(seed%3)
	for k := range SentencesPerChunk {
		if k > 0 {
			if inPara == paraLen {
				out = append(out, "\n\n"...)
				inPara = 0
				seed = seed*6364136223846793005 + 1442695040888963407
				paraLen = 2 + int(seed>>33%3)
			} else {
				out = append(out, ' ')
			}
		}
		x := ((first+k)%Capacity*step + off) % Capacity
		out = appendSentence(out, x, a, b)
		inPara++
	}
	out = append(out, '\n')
	_, err := w.Write(out)
	return err
}

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

// appendSentence writes sentence x of the space.
func appendSentence(out []byte, x int, a, b string) []byte {
	lead := func(i int) string {
		if i == 0 {
			return a
		}
		return b
	}
	// div takes the next mixed-radix digit of x.
	div := func(n int) int { d := x % n; x /= n; return d }
	switch {
	case x < sizeScene:
		t, s, pl, ac := div(len(times)), div(2), div(len(places)), div(len(acts))
		out = append(out, times[t]...)
		out = append(out, ' ')
		out = withParticle(out, lead(s), "은", "는")
		out = append(out, ' ')
		out = append(out, places[pl]...)
		out = append(out, "에서 "...)
		out = append(out, acts[ac]...)
	case x < sizeScene+sizeObject:
		x -= sizeScene
		s, o, h, e := div(2), div(len(objects)), div(len(hows)), div(len(handles))
		out = withParticle(out, lead(s), "은", "는")
		out = append(out, ' ')
		out = append(out, hows[h]...)
		out = append(out, ' ')
		out = append(out, objects[o]...)
		out = append(out, ' ')
		out = append(out, handles[e]...)
	case x < sizeScene+sizeObject+sizeSetting:
		x -= sizeScene + sizeObject
		pl, th, d := div(len(places)), div(len(things)), div(len(descs))
		out = append(out, places[pl]...)
		out = append(out, "의 "...)
		out = append(out, things[th]...)
		out = append(out, ' ')
		out = append(out, descs[d]...)
	case x < sizeScene+sizeObject+sizeSetting+sizeSpeech:
		x -= sizeScene + sizeObject + sizeSetting
		l, s, m, v := div(len(lines)), div(2), div(len(manners)), div(len(sayVerbs))
		out = append(out, "“"...)
		out = append(out, lines[l]...)
		out = append(out, "” "...)
		out = withParticle(out, lead(s), "이", "가")
		out = append(out, ' ')
		out = append(out, manners[m]...)
		out = append(out, ' ')
		out = append(out, sayVerbs[v]...)
	default:
		x -= sizeScene + sizeObject + sizeSetting + sizeSpeech
		s, c, f := div(2), div(len(causes)), div(len(feelings))
		out = withParticle(out, lead(s), "은", "는")
		out = append(out, ' ')
		out = append(out, causes[c]...)
		out = append(out, ' ')
		out = append(out, feelings[f]...)
	}
	return append(out, '.')
}

// withParticle appends name and the particle form its last syllable takes.
func withParticle(out []byte, name, afterConsonant, afterVowel string) []byte {
	out = append(out, name...)
	r, _ := utf8.DecodeLastRuneInString(name)
	if r >= 0xAC00 && r <= 0xD7A3 && (r-0xAC00)%28 != 0 {
		return append(out, afterConsonant...)
	}
	return append(out, afterVowel...)
}
