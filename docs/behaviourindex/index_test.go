package behaviourindex

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const heading = "## Where each behaviour lives"

// minRows is the floor: the index covers at least the 40 behaviours
// a newcomer asks about most.
const minRows = 40

var codeSpan = regexp.MustCompile("`([^`]+)`")

// row is one behaviour and the repository paths that own it.
type row struct {
	behaviour string
	paths     []string
}

// parseIndex reads the table under heading, up to the next "## " section.
func parseIndex(readme string) []row {
	_, after, ok := strings.Cut(readme, "\n"+heading+"\n")
	if !ok {
		return nil
	}
	if i := strings.Index(after, "\n## "); i >= 0 {
		after = after[:i]
	}
	var rows []row
	for _, line := range strings.Split(after, "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if !strings.HasPrefix(strings.TrimSpace(line), "|") || len(cells) != 2 ||
			strings.HasPrefix(strings.TrimSpace(cells[0]), "---") || strings.TrimSpace(cells[0]) == "behaviour" {
			continue
		}
		r := row{behaviour: strings.TrimSpace(cells[0])}
		for _, m := range codeSpan.FindAllStringSubmatch(cells[1], -1) {
			r.paths = append(r.paths, m[1])
		}
		rows = append(rows, r)
	}
	return rows
}

// problems lists what is wrong with the index against the tree at root.
func problems(rows []row, root string) []string {
	var out []string
	if len(rows) < minRows {
		out = append(out, "the index has fewer than 40 behaviours")
	}
	for _, r := range rows {
		if len(r.paths) == 0 {
			out = append(out, r.behaviour+": no owning file")
		}
		for _, p := range r.paths {
			if filepath.IsAbs(p) || strings.Contains(p, "..") {
				out = append(out, r.behaviour+": "+p+" is not a repository path")
				continue
			}
			if _, err := os.Stat(filepath.Join(root, p)); err != nil {
				out = append(out, r.behaviour+": "+p+" does not exist")
			}
		}
	}
	return out
}

func TestReadmeBehaviourIndexResolves(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := parseIndex(string(readme))
	for _, p := range problems(rows, root) {
		t.Error(p)
	}
	t.Logf("%d behaviours indexed", len(rows))
}

// The checker is run on tables that must fail, so the index test cannot
// pass by reading nothing.
func TestIndexCheckerRefusesBrokenTables(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "owner.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	good := "| `owner.go` |\n"
	table := func(n int, last string) string {
		s := "# x\n\n" + heading + "\n\n| behaviour | owned by |\n|---|---|\n"
		for i := 1; i < n; i++ {
			s += "| b" + strings.Repeat("x", i) + " " + good
		}
		return s + "| last " + last + "\n## Next\n\n| not | `counted.go` |\n"
	}
	cases := []struct {
		name, readme string
		want         string
	}{
		{"complete", table(minRows, good), ""},
		{"missing file", table(minRows, "| `gone.go` |"), "last: gone.go does not exist"},
		{"no owner", table(minRows, "| nothing |"), "last: no owning file"},
		{"escapes the repository", table(minRows, "| `../owner.go` |"), "last: ../owner.go is not a repository path"},
		{"too few rows", table(minRows-1, good), "the index has fewer than 40 behaviours"},
		{"no section", "# x\n", "the index has fewer than 40 behaviours"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := strings.Join(problems(parseIndex(c.readme), root), "; ")
			if got != c.want {
				t.Errorf("problems = %q, want %q", got, c.want)
			}
		})
	}
}
