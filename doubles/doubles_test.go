package doubles_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"storefront/doubles"
)

// goPackage is one folder of non-test Go files.
type goPackage struct {
	path    string // import path
	name    string // package clause
	files   []string
	imports map[string]bool
}

// scan reads the package clause and imports of every non-test Go file of
// the module (the frontend's node_modules and data folders left out).
func scan(t *testing.T, root string) map[string]*goPackage {
	t.Helper()
	pkgs := map[string]*goPackage{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".data", ".git", "testdata", "build":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		ip := "storefront"
		if rel != "." {
			ip += "/" + filepath.ToSlash(rel)
		}
		g := pkgs[ip]
		if g == nil {
			g = &goPackage{path: ip, name: f.Name.Name, imports: map[string]bool{}}
			pkgs[ip] = g
		}
		g.files = append(g.files, filepath.Base(p))
		for _, im := range f.Imports {
			v, _ := strconv.Unquote(im.Path.Value)
			g.imports[v] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

func listed() map[string]bool {
	out := map[string]bool{}
	for _, d := range doubles.All {
		for _, p := range d.Packages {
			out[p] = true
		}
	}
	return out
}

// A package shaped like a test double of a third party (named *test,
// *sandbox or *fake*, serving with net/http/httptest outside its tests, or
// holding a fake*.go file that is not the use of a listed double) must be in
// doubles.All, so live mode knows it. Adding a double without listing it
// fails here.
func TestEveryDoubleIsListed(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := scan(t, root)
	known := listed()
	for p := range known {
		if pkgs[p] == nil {
			t.Errorf("doubles.All lists %s, which is not in the repository", p)
		}
	}
	if len(pkgs) < 30 {
		t.Fatalf("scanned %d packages only: the scan is broken", len(pkgs))
	}
	found := 0
	for _, g := range pkgs {
		why := ""
		switch n := g.name; {
		case strings.HasSuffix(n, "test") && n != "writertest" || strings.HasSuffix(n, "sandbox") || strings.Contains(n, "fake"):
			why = "its name"
		case g.name == "writertest":
			why = "its name (the test helpers, with the fake OAuth2 provider)"
		case g.imports["net/http/httptest"]:
			why = "net/http/httptest outside its tests"
		}
		for _, f := range g.files {
			if why == "" && (strings.HasPrefix(f, "fake") || strings.Contains(f, "sandbox")) && !usesListed(g, known) {
				why = "its file " + f
			}
		}
		if why == "" {
			continue
		}
		found++
		if !known[g.path] {
			t.Errorf("%s looks like a test double (%s) but is not in doubles.All: list it with the real service it stands for, and have the services that can use it say so at start-up (doubles.Check)", g.path, why)
		}
	}
	if found < 5 {
		t.Errorf("found %d double-shaped packages; the repository has at least 5 (sandboxes, store fakes, push fake, test helpers)", found)
	}
}

func usesListed(g *goPackage, known map[string]bool) bool {
	for im := range g.imports {
		if known[im] {
			return true
		}
	}
	return false
}

// Every double's name is checked somewhere outside this package: a service
// or the launcher tells doubles.Check whether it uses it.
func TestEveryDoubleIsCheckedAtStartUp(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "doubles.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			for _, n := range spec.(*ast.ValueSpec).Names {
				names = append(names, n.Name)
			}
		}
	}
	if len(names) != len(doubles.All) {
		t.Fatalf("%d name constants for %d doubles", len(names), len(doubles.All))
	}
	root, _ := filepath.Abs("..")
	var src strings.Builder
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && slices.Contains([]string{"node_modules", ".data", ".git", "doubles"}, d.Name()) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			b, _ := os.ReadFile(p)
			src.Write(b)
		}
		return nil
	})
	for _, n := range names {
		if !strings.Contains(src.String(), "doubles."+n) {
			t.Errorf("doubles.%s is never checked at start-up (no doubles.Use names it)", n)
		}
	}
}

func TestCheck(t *testing.T) {
	uses := []doubles.Use{{Name: doubles.IdentitySandbox, On: true, Setting: "IDENTITY_URL"}, {Name: doubles.PushFake}}
	if err := doubles.Check(false, uses...); err != nil {
		t.Fatalf("dev mode refused: %v", err)
	}
	err := doubles.Check(true, uses...)
	if err == nil || !strings.Contains(err.Error(), "identity sandbox (IDENTITY_URL)") || strings.Contains(err.Error(), doubles.PushFake) {
		t.Fatalf("live: %v", err)
	}
	if err := doubles.Check(false, doubles.Use{Name: "a new fake"}); err == nil {
		t.Fatal("an unlisted double was accepted")
	}
}
