package demo

import "math/rand/v2"

// genreWords is what a work of one genre is written from: its title, summary,
// keywords and (for novels) sub-genre all come from the same bank, so a
// 화산파 story is filed under 무협 and an 육아일기 never gets a murder case.
// The banks overlap only where real stores overlap (a 황녀 is at home in
// 로맨스판타지 and GL alike); the catalog tests check that no title, summary or keyword carries a word
// that belongs to another genre only (demo/realism_test.go).
type genreWords struct {
	roles     []string // people a title is about
	places    []string // places and things ("화산", "황궁")
	abstracts []string // nouns ending a title ("귀환", "계약")
	adjs      []string // attributive adjectives
	chronicle []string // nouns read well right after a role or place ("생존기")
	tails     []string // sentence endings after "<role>는"
	// fixed are whole titles that read naturally only in this genre
	// ("나 혼자만 만렙", "내 남편과 계약해줘"); they get a role or subtitle
	// appended when they are taken.
	fixed []string
	opens []string // first summary sentence with two %s names
	turns []string // second summary sentence
	hooks []string // last summary sentence, %s is the lead ("" = none)
	// keywords are drawn from keywordPool entries that fit the genre.
	keywords []string
	// subGenres are the novel sub-genres (NovelSubGenres keys) this genre is
	// filed under; empty means the genre's own name stands as category2.
	subGenres []string
}

var romanceTurns = []string{
	"처음엔 서로를 이용할 생각뿐이었는데, 어느새 마음이 흔들리기 시작한다.",
	"선을 넘지 않겠다던 다짐은 생각보다 빨리 무너졌다.",
	"피하려 할수록 자꾸만 마주치게 되는 두 사람.",
}

var darkTurns = []string{
	"하지만 모두가 숨기고 있던 진실이 하나씩 드러나는데.",
	"누구도 예상하지 못한 선택이 모든 것을 바꾼다.",
	"그러나 운명은 생각보다 훨씬 집요했다.",
}

var growthTurns = []string{
	"세상이 정해 둔 결말 따위, 이번에는 따르지 않는다.",
	"남들이 비웃던 재능이 마침내 빛을 보기 시작한다.",
	"한 번 잃어 본 사람은 두 번 잃지 않는 법이다.",
}

var lightTurns = []string{
	"평범했던 하루가 조금씩 달라지기 시작한다.",
	"별것 아닌 하루들이 모여 조금씩 특별해진다.",
	"오늘도 무사히 지나가나 했더니, 역시나 사건이 터진다.",
}

var commonHooks = []string{"과연 %s의 선택은?", "%s의 이야기가 지금 시작된다.", "마지막에 웃는 사람은 누구일까.", ""}

var genreBank = map[string]*genreWords{
	"romance": {
		roles:     []string{"비서", "본부장", "팀장", "재벌", "전남편", "약혼자", "계약남편", "신입사원", "선배", "배우", "매니저", "변호사", "아이돌", "작가", "상속녀"},
		places:    []string{"사무실", "카페", "옥상", "꽃집", "호텔", "서점", "바다"},
		abstracts: []string{"계약", "비밀", "첫사랑", "짝사랑", "고백", "결혼", "이혼", "온도", "취향", "사생활", "거짓말", "후회", "연애", "스캔들"},
		adjs:      []string{"달콤한", "차가운", "뜨거운", "위험한", "다정한", "완벽한", "가짜", "서툰", "낯선", "사랑스러운", "불편한"},
		chronicle: []string{"연애일지", "사용법", "관찰일지", "길들이기"},
		tails:     []string{"결혼합니다", "이혼하겠습니다", "연애 중", "사랑받고 싶다", "퇴사합니다", "계약을 파기한다"},
		fixed:     []string{"내 남편과 계약해줘", "내 약혼자와 헤어지는 법", "사내 연애 금지", "우리 결혼할까요", "이혼 후의 첫사랑"},
		opens: []string{
			"계약 결혼으로 시작된 %s와 %s의 관계.",
			"첫사랑과 같은 회사에 입사한 %s, 하필이면 직속 상사가 %s다.",
			"하룻밤 실수로 엮인 %s와 톱배우 %s.",
			"이혼 서류에 도장을 찍은 날, %s 앞에 전남편 %s가 다시 나타났다.",
		},
		turns:     romanceTurns,
		hooks:     []string{"%s, 이번에는 진짜 사랑일까?", "두 사람의 아슬아슬한 줄다리기가 시작된다.", ""},
		keywords:  []string{"계약결혼", "오피스", "재벌", "집착남주", "직진남", "첫사랑", "짝사랑", "삼각관계", "동거", "힐링"},
		subGenres: []string{"modern-romance", "historical-romance"},
	},
	"romancefantasy": {
		roles:     []string{"황녀", "공작", "악녀", "공녀", "영애", "대공", "성녀", "황제", "왕자", "시녀", "가정교사", "흑막", "엑스트라", "황후", "기사단장"},
		places:    []string{"황궁", "북부", "저택", "정원", "온실", "제국", "왕국", "성"},
		abstracts: []string{"계약", "결혼", "이혼", "저주", "축복", "왕관", "가면", "후회", "구원", "비밀", "약혼", "레시피"},
		adjs:      []string{"버려진", "몰락한", "사랑스러운", "차가운", "가짜", "잊혀진", "하얀", "은빛"},
		chronicle: []string{"육아일기", "생존기", "사용법", "레시피"},
		tails:     []string{"은퇴합니다", "도망칩니다", "이혼하겠습니다", "악역을 그만두기로 했다", "흑막을 키운다", "착하게 살기로 했다", "다시 태어났다"},
		fixed:     []string{"악녀는 두 번 죽지 않는다", "공작님, 계약은 여기까지예요", "아기 황녀 육아일기", "버려진 영애의 두 번째 결혼"},
		opens: []string{
			"몰락한 가문의 영애 %s 앞에 나타난 북부의 대공 %s.",
			"소설 속 악녀로 빙의한 %s, 원작의 남주 %s에게서 도망치기로 했다.",
			"처형대에서 눈을 뜬 황녀 %s, 이번 생에는 황제 %s의 손을 잡지 않겠다.",
			"계약 기간은 일 년, %s는 공작 %s의 아이를 돌보는 가정교사가 되었다.",
		},
		turns:     []string{"정해진 결말을 바꾸려 할수록 원작과는 다른 이야기가 펼쳐진다.", "살아남기 위해 시작한 계약이었는데, 어느새 마음이 흔들린다.", "그러나 운명은 생각보다 훨씬 집요했다."},
		hooks:     []string{"과연 %s는 원작의 결말을 피할 수 있을까?", "%s의 두 번째 삶이 시작된다.", ""},
		keywords:  []string{"빙의", "회귀", "환생", "악녀", "황녀", "계약결혼", "정략결혼", "궁중암투", "집착남주", "육아"},
		subGenres: []string{"romance-fantasy"},
	},
	"fantasy": {
		roles:     []string{"마법사", "용사", "마왕", "헌터", "회귀자", "소환사", "연금술사", "기사", "마검사", "궁수", "대장장이", "군주", "플레이어", "네크로맨서"},
		places:    []string{"탑", "던전", "게이트", "왕국", "마탑", "시계탑", "도서관", "숲", "섬", "대륙"},
		abstracts: []string{"귀환", "각성", "환생", "전설", "연대기", "재능", "유산", "계약", "왕관", "기록"},
		adjs:      []string{"최강의", "무한의", "돌아온", "잊혀진", "검은", "붉은", "황금빛", "마지막"},
		chronicle: []string{"생존기", "성장기", "연대기", "정복기", "표류기", "공략집"},
		tails:     []string{"귀환했다", "회귀했다", "각성했다", "살아남았다", "은퇴합니다", "다시 태어났다"},
		fixed:     []string{"나 혼자만 만렙", "나 혼자만 튜토리얼", "나 혼자만 히든클래스", "SSS급 소환사", "F급 헌터의 회귀", "10서클 마법사의 귀환", "100층 탑의 군주"},
		opens: []string{
			"게이트가 열린 지 30년, F급 헌터 %s에게 시스템 창이 떠올랐다.",
			"십 년 전으로 돌아온 %s. 이번 생에는 %s보다 먼저 움직이기로 했다.",
			"마탑 최하층의 견습 마법사 %s, 금지된 서고에서 대마법사 %s의 일기를 발견한다.",
			"튜토리얼에 천 년 동안 갇혀 있던 %s가 드디어 탑을 나왔다.",
		},
		turns:     growthTurns,
		hooks:     []string{"%s의 이야기가 지금 시작된다.", "%s, 이번에는 끝까지 간다!", ""},
		keywords:  []string{"회귀", "환생", "헌터", "게이트", "던전", "시스템", "먼치킨", "마법", "용", "성장물", "판타지", "사이다"},
		subGenres: []string{"modern-fantasy", "fusion-fantasy"},
	},
	"martial": {
		roles:     []string{"무사", "검귀", "천마", "검객", "살수", "소가주", "검신", "의원", "장문인", "표사", "점소이"},
		places:    []string{"무림", "화산", "마교", "무당", "소림", "천산", "강호", "객잔", "남궁세가", "당가"},
		abstracts: []string{"귀환", "복수", "환생", "전설", "비급", "검", "신공"},
		adjs:      []string{"광마", "절대", "천하제일", "돌아온", "미친"},
		chronicle: []string{"귀환", "생존기", "환생록", "검협전", "전기"},
		tails:     []string{"회귀했다", "은퇴합니다", "복수를 꿈꾼다", "다시 검을 든다"},
		fixed:     []string{"화산파 막내 제자", "마교 교주의 은퇴", "천마는 객잔을 연다", "무당 장문인의 회귀"},
		opens: []string{
			"멸문한 화산파의 마지막 제자 %s, 스승 %s의 유언을 안고 강호로 나선다.",
			"마교의 막내 %s, 정파 제일검 %s와 엮이고 말았다.",
			"천하제일인 %s가 눈을 뜬 곳은 삼류 문파 말단 제자의 몸이었다.",
			"객잔 점소이 %s, 피투성이로 쓰러진 검객 %s를 거두면서 강호에 발을 들인다.",
		},
		turns:     []string{"무림을 뒤흔들 피바람이 다시 불어오기 시작한다.", "정파와 사파가 모두 그를 노리기 시작한다.", "한 번 잃어 본 사람은 두 번 잃지 않는 법이다."},
		hooks:     []string{"%s의 검이 강호를 가른다.", "%s, 이번에는 끝까지 간다!", ""},
		keywords:  []string{"무협", "회귀", "환생", "복수", "먼치킨", "사이다", "성장물"},
		subGenres: []string{"classic-martial", "new-martial"},
	},
	"action": {
		roles:     []string{"해결사", "용병", "경호원", "특수요원", "싸움꾼", "격투가", "헌터", "킬러", "보안관"},
		places:    []string{"뒷골목", "항구", "도시", "지하철", "링", "교도소"},
		abstracts: []string{"복수", "귀환", "전쟁", "규칙", "사냥", "생존"},
		adjs:      []string{"최강의", "무자비한", "돌아온", "마지막", "미친"},
		chronicle: []string{"생존기", "사냥기", "전쟁"},
		tails:     []string{"귀환했다", "은퇴합니다", "복수를 꿈꾼다", "살아남았다"},
		fixed:     []string{"은퇴한 용병의 하루", "뒷골목 해결사", "최강 경호원의 귀환"},
		opens: []string{
			"전설의 용병 %s, 은퇴하고 조용히 살려던 그의 앞에 %s가 나타났다.",
			"좀비가 들끓는 도시, 생존자 %s와 %s는 마지막 구조선을 향해 달린다.",
			"뒷골목 해결사 %s에게 들어온 의뢰, 표적은 조직의 후계자 %s다.",
		},
		turns:    []string{"물러설 곳은 없다. 싸워서 이기는 수밖에.", "누구도 예상하지 못한 선택이 모든 것을 바꾼다."},
		hooks:    []string{"%s, 이번에는 끝까지 간다!", "마지막에 웃는 사람은 누구일까.", ""},
		keywords: []string{"사이다", "먼치킨", "복수", "좀비", "아포칼립스", "헌터", "성장물"},
	},
	"thriller": {
		roles:     []string{"형사", "탐정", "프로파일러", "기자", "목격자", "법의관", "경위"},
		places:    []string{"저택", "골목", "병동", "지하실", "호수", "폐교"},
		abstracts: []string{"진실", "거짓말", "비밀", "그림자", "밤", "가면", "실종", "기억", "증거"},
		adjs:      []string{"수상한", "조용한", "기묘한", "붉은", "검은", "잊혀진"},
		chronicle: []string{"살인사건", "실종사건", "수사일지"},
		tails:     []string{"거짓말을 한다", "진실을 쫓는다", "아무것도 보지 못했다"},
		fixed:     []string{"열세 번째 목격자", "그날 밤의 증언", "사라진 사람들"},
		opens: []string{
			"사라진 동생을 찾는 형사 %s, 단서는 %s가 남긴 낡은 수첩뿐이다.",
			"십 년 전 미제 사건의 유일한 목격자 %s, 그리고 다시 나타난 범인 %s.",
			"폐쇄 병동에서 눈을 뜬 %s, 기억나는 이름은 %s 하나뿐이다.",
		},
		turns:     darkTurns,
		hooks:     []string{"범인은 이 안에 있다.", "%s는 진실에 닿을 수 있을까.", ""},
		keywords:  []string{"미스터리", "복수", "좀비", "아포칼립스", "전문직", "법정"},
		subGenres: []string{"mystery"},
	},
	"drama": {
		roles:     []string{"재벌", "막내아들", "의사", "변호사", "요리사", "배우", "검사", "신입사원", "가장", "며느리", "상속녀"},
		places:    []string{"병원", "법정", "식당", "회사", "방송국", "시장"},
		abstracts: []string{"유산", "계약", "비밀", "약속", "진실", "후회", "가족", "재기"},
		adjs:      []string{"평범한", "다정한", "마지막", "돌아온", "불편한"},
		chronicle: []string{"성장기", "분투기", "일지"},
		tails:     []string{"오늘도 출근한다", "다시 시작한다", "복수를 꿈꾼다", "회귀했다"},
		fixed:     []string{"재벌집 막내아들의 두 번째 인생", "응급실 24시", "법정의 온도"},
		opens: []string{
			"평범한 직장인 %s의 하루가 %s의 전화 한 통으로 무너진다.",
			"망해 가는 동네 병원을 물려받은 %s, 첫 환자는 %s다.",
			"재벌가의 숨겨진 딸 %s, 유산을 두고 %s와 마주 섰다.",
		},
		turns:    []string{"하지만 모두가 숨기고 있던 진실이 하나씩 드러나는데.", "가족이라는 이름이 가장 무거운 짐이 된다.", "다시 일어서기로 한 이상, 물러설 곳은 없다."},
		hooks:    commonHooks,
		keywords: []string{"재벌", "전문직", "의학", "법정", "복수", "사이다", "힐링"},
	},
	"comedy": {
		roles:     []string{"알바생", "자취생", "공시생", "신입사원", "엑스트라", "백수", "집사"},
		places:    []string{"편의점", "자취방", "동아리방", "사무실", "PC방"},
		abstracts: []string{"사정", "생활", "취향", "소원", "법칙"},
		adjs:      []string{"수상한", "이상한", "평범한", "귀여운", "서툰"},
		chronicle: []string{"분투기", "생존기", "사용법", "관찰일지"},
		tails:     []string{"집에 가고 싶다", "쉬고 싶다", "오늘도 출근한다", "파업합니다"},
		fixed:     []string{"SSS급 편의점 알바", "백수 탈출 대작전", "우리 집 고양이는 사장님"},
		opens: []string{
			"취업 준비 3년 차 %s, 얼떨결에 괴짜 사장 %s의 비서가 되었다.",
			"새벽 편의점 알바생 %s, 매일 같은 시간에 나타나는 손님 %s가 수상하다.",
			"자취 첫날부터 꼬여 버린 %s, 옆집 %s와의 기묘한 동거가 시작된다.",
		},
		turns:    lightTurns,
		hooks:    []string{"웃다 보면 어느새 정주행 완료!", "%s의 하루는 오늘도 바쁘다.", ""},
		keywords: []string{"코믹", "착각계", "힐링", "동거", "캠퍼스", "오피스"},
	},
	"daily": {
		roles:     []string{"집사", "자취생", "사장님", "할머니", "초보 엄마", "아이돌", "동네 의사"},
		places:    []string{"식당", "카페", "골목", "시골집", "꽃집", "빵집", "옥상"},
		abstracts: []string{"일기", "레시피", "하루", "계절", "산책", "밥상"},
		adjs:      []string{"다정한", "조용한", "평범한", "느린", "따뜻한"},
		chronicle: []string{"육아일기", "일기", "레시피", "관찰일지", "생활"},
		tails:     []string{"쉬고 싶다", "오늘도 밥을 짓는다", "시골로 갑니다"},
		fixed:     []string{"고양이 세 마리와 삽니다", "오늘의 밥상", "시골 빵집의 사계절"},
		opens: []string{
			"동네 작은 식당을 물려받은 %s, 단골손님 %s와의 소소한 하루.",
			"고양이 세 마리와 사는 %s의 좌충우돌 일상, 옆집에 %s가 이사 왔다.",
			"은퇴한 아이돌 %s, 조카 %s를 맡아 키우게 되었다.",
		},
		turns:    lightTurns,
		hooks:    []string{"오늘도 수고한 당신에게 건네는 따뜻한 한 끼.", "%s의 하루는 오늘도 바쁘다.", ""},
		keywords: []string{"힐링", "요리", "육아", "동거", "청춘"},
	},
	"school": {
		roles:     []string{"전학생", "반장", "학생회장", "일진", "모범생", "담임", "후배"},
		places:    []string{"교실", "옥상", "운동장", "동아리방", "기숙사", "고등학교"},
		abstracts: []string{"첫사랑", "비밀", "고백", "여름", "졸업", "약속"},
		adjs:      []string{"서툰", "낯선", "눈부신", "평범한", "조용한"},
		chronicle: []string{"생존기", "일기", "성장기"},
		tails:     []string{"전학 왔다", "고백하지 않는다", "졸업하고 싶다"},
		fixed:     []string{"3학년 2반 전학생", "방과 후 옥상에서", "열여덟의 여름"},
		opens: []string{
			"폐교 직전의 학교에 부임한 %s, 첫 제자는 문제아 %s.",
			"전학 첫날, %s는 학교 최고의 문제아 %s와 짝이 되었다.",
			"졸업까지 백 일, 반장 %s와 전교 꼴찌 %s의 비밀 과외가 시작된다.",
		},
		turns:    []string{"평범했던 학교생활이 조금씩 달라지기 시작한다.", "열여덟의 여름은 생각보다 훨씬 뜨거웠다."},
		hooks:    commonHooks,
		keywords: []string{"학원물", "청춘", "첫사랑", "짝사랑", "성장물", "캠퍼스"},
	},
	"sports": {
		roles:     []string{"투수", "공격수", "세터", "복서", "골키퍼", "후보 선수", "코치", "에이스"},
		places:    []string{"야구부", "농구부", "배구부", "그라운드", "링", "코트"},
		abstracts: []string{"역전", "승부", "재기", "약속", "여름"},
		adjs:      []string{"돌아온", "마지막", "무명의", "천재"},
		chronicle: []string{"성장기", "분투기", "전설"},
		tails:     []string{"다시 마운드에 선다", "포기하지 않는다", "은퇴하지 않는다"},
		fixed:     []string{"9회 말 투아웃", "꼴찌 배구부의 반란", "링 위의 두 번째 인생"},
		opens: []string{
			"만년 후보 선수 %s, 새 감독 %s를 만나 달라지기 시작한다.",
			"부상으로 은퇴한 천재 투수 %s, 폐부 직전의 야구부 코치가 되었다.",
			"해체 위기의 배구부, 남은 부원은 %s와 %s 단 두 명.",
		},
		turns:    []string{"남들이 비웃던 재능이 마침내 빛을 보기 시작한다.", "포기하지 않는 한, 경기는 끝나지 않는다."},
		hooks:    []string{"%s의 역전은 지금부터다!", ""},
		keywords: []string{"스포츠", "성장물", "청춘", "사이다"},
	},
	"bl": {
		roles:     []string{"룸메이트", "선배", "후배", "호위기사", "황태자", "팀장", "대리", "조수", "계약 연인"},
		places:    []string{"기숙사", "사무실", "작업실", "황궁", "옥탑방"},
		abstracts: []string{"계약", "비밀", "고백", "온도", "취향", "거리", "첫사랑"},
		adjs:      []string{"다정한", "위험한", "낯선", "불편한", "차가운"},
		chronicle: []string{"연애일지", "관찰일지", "사용법"},
		tails:     []string{"연애 중", "고백하지 않는다", "계약을 파기한다"},
		fixed:     []string{"룸메이트의 사정", "선배, 그건 반칙이에요", "열 번째 계약 연애"},
		opens: []string{
			"열 번째 계약 연애, %s는 이번에도 %s에게 질 생각이 없다.",
			"같은 방을 쓰게 된 룸메이트 %s와 %s.",
			"황태자의 호위 기사 %s, 그리고 그가 지켜야 할 %s.",
		},
		turns:     romanceTurns,
		hooks:     []string{"두 사람의 아슬아슬한 줄다리기가 시작된다.", ""},
		keywords:  []string{"캠퍼스", "오피스", "동거", "첫사랑", "짝사랑", "집착남주", "직진남", "계약결혼"},
		subGenres: []string{"modern-bl", "fantasy-bl"},
	},
	"gl": {
		roles:     []string{"영애", "선배", "룸메이트", "황녀", "기사", "화가"},
		places:    []string{"온실", "작업실", "기숙사", "정원"},
		abstracts: []string{"비밀", "고백", "여름", "취향", "약속"},
		adjs:      []string{"눈부신", "조용한", "다정한", "낯선"},
		chronicle: []string{"일기", "연애일지"},
		tails:     []string{"고백하지 않는다", "연애 중"},
		fixed:     []string{"그녀의 온실", "영애와 기사"},
		opens: []string{
			"졸업 전시를 앞둔 %s, 모델이 되어 준 선배 %s에게 자꾸만 눈이 간다.",
			"약혼을 앞둔 영애 %s, 호위 기사로 온 %s에게 마음을 빼앗겼다.",
		},
		turns:    romanceTurns,
		hooks:    []string{"두 사람의 여름이 시작된다.", ""},
		keywords: []string{"첫사랑", "짝사랑", "캠퍼스", "힐링"},
	},
	"erotic": {
		roles:     []string{"상사", "이웃", "비서", "계약 연인", "전남편", "집주인"},
		places:    []string{"호텔", "사무실", "펜트하우스"},
		abstracts: []string{"밤", "계약", "비밀", "유혹", "관계"},
		adjs:      []string{"은밀한", "위험한", "뜨거운", "나쁜"},
		chronicle: []string{"계약서", "관계"},
		tails:     []string{"선을 넘는다", "계약을 파기한다"},
		fixed:     []string{"위험한 이웃", "그 밤의 계약서"},
		opens: []string{
			"하룻밤의 계약, %s와 %s는 서로를 모르는 척하기로 했다.",
			"새로 온 상사 %s, 하필이면 %s의 그날 밤 상대였다.",
		},
		turns:    []string{"선을 넘지 않겠다던 다짐은 생각보다 빨리 무너졌다.", "숨기려 할수록 관계는 더 깊어진다."},
		hooks:    []string{""},
		keywords: []string{"계약결혼", "집착남주", "오피스", "동거"},
	},
}

// wordsOf returns the bank of a genre key.
func wordsOf(key string) *genreWords { return genreBank[key] }

// composeTitle builds a title from a genre's bank.
func composeTitle(r *rand.Rand, w *genreWords) string {
	switch r.IntN(9) {
	case 0:
		return pick(r, w.adjs) + " " + pick(r, w.roles)
	case 1:
		return pick(r, w.roles) + "의 " + pick(r, w.abstracts)
	case 2:
		return pick(r, w.fixed)
	case 3:
		return josa(pick(r, w.roles), "은", "는") + " " + pick(r, w.tails)
	case 4:
		return pick(r, w.places) + "의 " + pick(r, w.roles)
	case 5:
		return pick(r, w.roles) + " " + pick(r, w.chronicle)
	case 6:
		return pick(r, w.places) + " " + pick(r, w.chronicle)
	case 7:
		return pick(r, w.adjs) + " " + pick(r, w.places) + "의 " + pick(r, w.abstracts)
	}
	return pick(r, w.places) + "의 " + pick(r, w.abstracts)
}

// summaryOf writes a work's summary from its genre's bank.
func summaryOf(r *rand.Rand, w *genreWords) string {
	a, b := characterName(r), characterName(r)
	s := formatNames(pick(r, w.opens), a, b) + " " + pick(r, w.turns)
	if hook := pick(r, w.hooks); hook != "" {
		s += " " + formatNames(hook, a, "")
	}
	return s
}

// keywordsOf draws 2 to 4 distinct keywords that fit the genre.
func keywordsOf(r *rand.Rand, w *genreWords) []string {
	n := min(len(w.keywords), 2+r.IntN(3))
	out := make([]string, 0, n)
	for len(out) < n {
		k := pick(r, w.keywords)
		if !containsString(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// curatedWork is a hand-made title with the genre it belongs to.
type curatedWork struct{ title, genre string }

// curatedTitles are the first works of every catalog, so initial-consonant
// search has good cases (ㄱㅁ: 검마전, 귀멸의 검사, 구미호 마을, 검은 마법사). Each
// carries its genre: a curated title is never filed under a genre it does not
// read as.
var curatedTitles = []curatedWork{
	{"검마전", "martial"}, {"귀멸의 검사", "martial"}, {"나 혼자만 레벨업하는 검사", "fantasy"},
	{"구미호 마을", "daily"}, {"검은 마법사", "fantasy"}, {"고모의 비밀", "drama"},
	{"금목걸이 살인사건", "thriller"}, {"감미로운 계약", "romance"}, {"거미줄 저택", "thriller"},
	{"기묘한 골목", "thriller"}, {"경매장의 마녀", "romancefantasy"}, {"광마회귀", "martial"},
	{"재벌집 셋째 딸", "drama"}, {"화산귀환록", "martial"}, {"전지적 조연 시점", "fantasy"},
	{"악녀는 은퇴합니다", "romancefantasy"}, {"북부 대공의 정원", "romancefantasy"},
	{"달빛 편의점", "daily"}, {"마교 교주의 이직", "martial"}, {"황녀님의 레시피", "romancefantasy"},
	{"옥상 위의 고양이", "daily"}, {"SSS급 편의점 알바", "comedy"}, {"내 남편과 계약해줘", "romance"},
	{"시계탑의 연금술사", "fantasy"}, {"무림 생존기", "martial"}, {"헌터 학원의 F급", "fantasy"},
	{"사랑스러운 흑막", "romancefantasy"},
}
