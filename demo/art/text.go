package art

import (
	"io"
	"unicode/utf8"

	"storefront/contract"
)

var nameSyllables = []string{
	"서", "윤", "하", "준", "민", "지", "도", "은", "시", "우", "연", "주", "태", "린", "율", "온", "현", "채", "건", "설",
}

// Sentences of the novel text. A and B are the two leads (a name is always
// followed by a particle written for names ending in a vowel; write fixes it).
var narration = []string{
	"A는 창밖을 내다보며 깊은 숨을 내쉬었다.",
	"바람이 불 때마다 오래된 창틀이 삐걱거렸다.",
	"B는 아무 말 없이 찻잔을 내려놓았다.",
	"복도 끝에서 누군가의 발소리가 가까워졌다.",
	"그 순간, A의 눈앞에 푸른 글자가 떠올랐다.",
	"A는 손끝이 떨리는 것을 애써 감추었다.",
	"B가 웃었다. 처음 보는, 어딘가 쓸쓸한 웃음이었다.",
	"비에 젖은 골목은 낮보다 훨씬 넓어 보였다.",
	"시계탑의 종이 열두 번 울렸다.",
	"A는 B를 똑바로 바라보았다.",
	"기억 속의 그날과 똑같은 하늘이었다.",
	"누구도 그 편지의 주인을 알지 못했다.",
	"검 끝에 맺힌 빛이 천천히 사그라들었다.",
	"B는 오래 망설이다가 결국 고개를 끄덕였다.",
	"A의 심장이 쿵, 하고 내려앉았다.",
	"창문 너머로 희미한 새벽빛이 번지기 시작했다.",
	"모든 것이 제자리로 돌아간 것처럼 보였다. 적어도 겉으로는.",
	"A는 주먹을 꽉 쥐었다. 이번에는 놓치지 않을 것이다.",
	"골목 어귀의 편의점 불빛만이 유난히 밝았다.",
	"B의 목소리는 낮았지만 또렷했다.",
	"A는 서랍 깊숙한 곳에서 낡은 수첩을 꺼냈다.",
	"그날 이후로 B는 한 번도 그 이야기를 꺼내지 않았다.",
	"멀리서 천둥소리가 낮게 울렸다.",
	"A는 대답 대신 B의 손을 잡았다.",
	"식어 버린 커피에서 쓴 향이 올라왔다.",
	"성벽 위로 붉은 깃발이 펄럭였다.",
	"B는 잠시 눈을 감았다가 천천히 떴다.",
	"A의 머릿속에 십 년 전의 장면이 스쳐 지나갔다.",
	"문이 열리자 차가운 공기가 밀려 들어왔다.",
	"누군가 A의 이름을 불렀다. 아주 오랜만에 듣는 목소리였다.",
	"B가 건넨 종이에는 단 한 줄이 적혀 있었다.",
	"거리는 축제를 앞둔 사람들로 북적였다.",
	"A는 조용히 검을 뽑아 들었다.",
	"하늘을 가르는 섬광과 함께 시스템 메시지가 울렸다.",
}

var speech = []string{
	"“여기서 뭐 하는 거야?”",
	"“괜찮아. 내가 있잖아.”",
	"“그 약속, 아직 기억하고 있어?”",
	"“이번에는 다를 거야.”",
	"“대답해. 왜 돌아온 거지?”",
	"“늦어서 미안해.”",
	"“당신이 원하는 게 정말 그거라면요.”",
	"“도망치지 마. 이번엔.”",
	"“…고마워.”",
	"“그러니까, 처음부터 다시 말해 봐.”",
	"“지금이 아니면 안 돼.”",
	"“나를 믿어. 한 번만.”",
	"“그건 네 잘못이 아니야.”",
	"“이제 와서 무슨 소용이죠?”",
	"“가자. 시간이 없어.”",
}

// Text writes text chunk n (from 1) of volume vol of a novel: Korean prose made of
// stock sentences, the same for the same arguments. The first chunk starts
// with the volume heading.
func Text(w io.Writer, p *contract.Product, vol, n int) error {
	base := hashString(0, p.PID)
	names := rng(base)
	a := nameSyllables[names.intn(len(nameSyllables))] + nameSyllables[names.intn(len(nameSyllables))]
	bn := nameSyllables[names.intn(len(nameSyllables))] + nameSyllables[names.intn(len(nameSyllables))]
	r := rng(hashInts(base, vol, n, 0x747874))
	b := newBuf(6144)
	if n == 1 {
		b.b = append(b.b, p.Title...)
		b.s(" ").i(vol)
		if p.Unit == "권" {
			b.s("권\n\n")
		} else {
			b.s("화\n\n")
		}
	}
	paragraphs := r.between(10, 16)
	for k := range paragraphs {
		if k > 0 {
			b.s("\n\n")
		}
		sentences := r.between(2, 4)
		for s := range sentences {
			if s > 0 {
				b.s(" ")
			}
			if r.intn(4) == 0 {
				b.s(speech[r.intn(len(speech))])
				continue
			}
			b.sentence(narration[r.intn(len(narration))], a, bn)
		}
	}
	b.s("\n")
	return b.write(w)
}

// sentence writes tmpl with the names put in for A and B and the particle
// after each fixed to the name's last syllable.
func (b *buf) sentence(tmpl, a, bn string) {
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		if c != 'A' && c != 'B' {
			b.b = append(b.b, c)
			continue
		}
		name := a
		if c == 'B' {
			name = bn
		}
		b.b = append(b.b, name...)
		if !batchim(name) {
			continue
		}
		next, size := utf8.DecodeRuneInString(tmpl[i+1:])
		if alt, ok := particleAfterConsonant[next]; ok {
			b.b = append(b.b, alt...)
			i += size
		}
	}
}

var particleAfterConsonant = map[rune]string{'는': "은", '가': "이", '를': "을", '와': "과"}

func batchim(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r >= 0xAC00 && r <= 0xD7A3 && (r-0xAC00)%28 != 0
}
