package search

import "testing"

func TestMatch(t *testing.T) {
	cases := []struct {
		title, q string
		want     bool
	}{
		{"귀멸의 칼날", "ㄱㅁ", true},
		{"귀멸의 칼날", "ㄱㅁㅇㅋㄴ", true},
		{"귀멸의 칼날", "귀ㅁ", true},
		{"귀멸의 칼날", "귀멸의칼날", true},
		{"귀멸의 칼날", "귀 멸 의 칼 날", true},
		{"귀멸의 칼날", "칼날", true},
		{"귀멸의 칼날", "ㅋㄴ", true},
		{"귀멸의 칼날", "ㄴㅁ", false},
		{"귀멸의 칼날", "귀멸의 검", false},
		{"Solo Leveling", "sololev", true},
		{"나 혼자만 레벨업", "ㄴㅎㅈㅁ", true},
		{"나 혼자만 레벨업", "레벨 업", true},
		{"나 혼자만 레벨업", "ㄹㅂㅇㅂ", false},
	}
	for _, c := range cases {
		if got := Match(Key(c.title), Key(c.q)) >= 0; got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.title, c.q, got, c.want)
		}
	}
	if Match(Key("abc"), Key("   ")) != -1 {
		t.Error("empty query must not match")
	}
	if Match(Key("귀멸의 칼날"), Key("ㄱㅁ")) != 0 {
		t.Error("prefix match should be at 0")
	}
}

func BenchmarkMatch(b *testing.B) {
	k, q := Key("이번 생은 악녀로 살겠습니다 외전"), Key("ㅇㄴㄹ")
	b.ReportAllocs()
	for b.Loop() {
		Match(k, q)
	}
}
