package prose_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"storefront/contract"
	"storefront/demo"
	"storefront/demo/prose"
)

// Every sentence of the space is a different string: two slot combinations
// never read the same, so distinct positions give distinct sentences.
func TestSentenceSpaceHasNoDuplicates(t *testing.T) {
	t.Parallel()
	a, b := prose.Leads("eb000001")
	seen := make(map[string]int, prose.Capacity)
	for pos := range prose.Capacity {
		s := prose.Sentence("eb000001", pos, a, b)
		if prev, dup := seen[s]; dup {
			t.Fatalf("positions %d and %d both read %q", prev, pos, s)
		}
		seen[s] = pos
	}
}

// sentences splits a chunk into its sentences: a sentence ends with '.'
// before a space or a line break, outside quotes.
func sentences(text string) []string {
	var out []string
	quoted := false
	start := 0
	rs := []rune(text)
	for i, r := range rs {
		switch {
		case r == '“':
			quoted = true
		case r == '”':
			quoted = false
		case r == '.' && !quoted && (i+1 == len(rs) || rs[i+1] == ' ' || rs[i+1] == '\n'):
			out = append(out, strings.TrimSpace(string(rs[start:i+1])))
			start = i + 1
		}
	}
	return out
}

// No novel of a generated catalog repeats a sentence anywhere in its text,
// across all its volumes and chunks (read in full for a small catalog; for the
// default catalog every novel fits the sentence space, which with the test
// above makes its sentences distinct).
func TestNovelsNeverRepeatASentence(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	small := demo.Generate(demo.Options{Seed: 11, Works: 150, Now: now})
	novels := 0
	for i := range small.Products {
		p := &small.Products[i]
		if p.Section != contract.SectionNovel {
			continue
		}
		novels++
		a, b := prose.Leads(p.PID)
		if a == b {
			t.Fatalf("%s: both leads are %s", p.PID, a)
		}
		seen := map[string]string{}
		for _, v := range p.Volumes {
			for n := 1; n <= v.Pages; n++ {
				var buf bytes.Buffer
				if err := prose.Text(&buf, p, v.No, n); err != nil {
					t.Fatal(err)
				}
				text := buf.String()
				if n == 1 {
					head, rest, _ := strings.Cut(text, "\n\n")
					if head != p.Title+" "+v.Title {
						t.Fatalf("%s vol %d starts %q", p.PID, v.No, head)
					}
					text = rest
				}
				ss := sentences(text)
				if len(ss) != prose.SentencesPerChunk {
					t.Fatalf("%s vol %d chunk %d: %d sentences", p.PID, v.No, n, len(ss))
				}
				for _, s := range ss {
					where := v.Title + "/" + string(rune('0'+n))
					if prev, dup := seen[s]; dup {
						t.Fatalf("%s %q repeats %q (%s and %s)", p.PID, p.Title, s, prev, where)
					}
					seen[s] = where
				}
			}
		}
	}
	if novels < 20 {
		t.Fatalf("only %d novels", novels)
	}

	cat := demo.Generate(demo.Options{Seed: 7, Now: now})
	for i := range cat.Products {
		p := &cat.Products[i]
		if p.Section != contract.SectionNovel {
			continue
		}
		last := p.Volumes[len(p.Volumes)-1]
		if end := prose.Position(p, last.No, last.Pages, prose.SentencesPerChunk-1); end >= prose.Capacity {
			t.Fatalf("%s: %d sentence positions, the space holds %d", p.PID, end+1, prose.Capacity)
		}
	}
}

func BenchmarkText(b *testing.B) {
	p := &contract.Product{PID: "eb000001", Title: "달빛 편의점", Unit: "화"}
	b.ReportAllocs()
	for b.Loop() {
		prose.Text(&bytes.Buffer{}, p, 5, 2)
	}
}
