package deploy

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// ourMetric matches the store's metric names in an expression.
var ourMetric = regexp.MustCompile(`\b(?:edge|writer|analytics)_[a-z0-9_]+`)

// registered scans the services' Go sources (tests left out) for the metric
// names they register: prometheus.*Opts{Name: "..."} and NewDesc("...").
func registered(t *testing.T) map[string]bool {
	t.Helper()
	decl := regexp.MustCompile(`(?:Name:\s*|NewDesc\()"((?:edge|writer|analytics)_[a-z0-9_]+)"`)
	names := map[string]bool{}
	for _, dir := range []string{"../edge", "../writer", "../analytics"} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			b, err := os.ReadFile(p)
			for _, m := range decl.FindAllSubmatch(b, -1) {
				names[string(m[1])] = true
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(names) < 20 {
		t.Fatalf("only %d metrics found in the sources", len(names))
	}
	return names
}

// unknownMetrics lists the metrics expr reads that no service registers
// (a histogram's _bucket, _sum and _count count as the histogram).
func unknownMetrics(expr string, known map[string]bool) []string {
	var out []string
	for _, m := range ourMetric.FindAllString(expr, -1) {
		base := m
		for _, suf := range []string{"_bucket", "_sum", "_count"} {
			if strings.HasSuffix(m, suf) && known[strings.TrimSuffix(m, suf)] {
				base = strings.TrimSuffix(m, suf)
			}
		}
		if !known[base] {
			out = append(out, m)
		}
	}
	return out
}

type dashboard struct {
	UID    string `json:"uid"`
	Title  string `json:"title"`
	Panels []struct {
		Title   string `json:"title"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

type ruleFile struct {
	Groups []struct {
		Name  string `json:"name"`
		Rules []struct {
			Alert       string            `json:"alert"`
			Expr        string            `json:"expr"`
			For         string            `json:"for,omitempty"`
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"rules"`
	} `json:"groups"`
}

// A renamed or removed metric fails here: every panel and every alert reads
// only metrics the services register.
func TestDashboardsReadRegisteredMetrics(t *testing.T) {
	known := registered(t)
	if got := unknownMetrics(`rate(edge_answers_totl[1m]) + edge_request_duration_seconds_bucket`, known); !slices.Equal(got, []string{"edge_answers_totl"}) {
		t.Fatalf("the check itself: unknown %v, want [edge_answers_totl]", got)
	}
	files, _ := filepath.Glob("monitoring/dashboards/*.json")
	if len(files) != 3 {
		t.Fatalf("dashboards: %v, want release minute, money, ingestion", files)
	}
	uids := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d dashboard
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if d.UID == "" || uids[d.UID] || len(d.Panels) == 0 {
			t.Errorf("%s: uid %q (unique, set) and %d panels", f, d.UID, len(d.Panels))
		}
		uids[d.UID] = true
		for _, p := range d.Panels {
			if len(p.Targets) == 0 {
				t.Errorf("%s: panel %q has no query", f, p.Title)
			}
			for _, q := range p.Targets {
				if len(ourMetric.FindAllString(q.Expr, -1)) == 0 && !strings.Contains(q.Expr, "up{") {
					t.Errorf("%s: panel %q reads none of our metrics: %s", f, p.Title, q.Expr)
				}
				if u := unknownMetrics(q.Expr, known); len(u) > 0 {
					t.Errorf("%s: panel %q reads %v, which no service registers", f, p.Title, u)
				}
			}
		}
	}
}

// Every alert reads registered metrics and links a runbook section that exists.
func TestAlertsReadRegisteredMetricsAndLinkRunbooks(t *testing.T) {
	known := registered(t)
	b, err := os.ReadFile("monitoring/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	var rf ruleFile
	if err := yaml.UnmarshalStrict(b, &rf); err != nil {
		t.Fatal(err)
	}
	runbooks, err := os.ReadFile("../docs/runbooks.md")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#{2,3} (\w+)$`).FindAllSubmatch(runbooks, -1) {
		anchors[strings.ToLower(string(m[1]))] = true
	}
	n := 0
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			n++
			if r.Labels["severity"] != "critical" && r.Labels["severity"] != "warning" {
				t.Errorf("alert %s: severity %q, want critical or warning", r.Alert, r.Labels["severity"])
			}
			if u := unknownMetrics(r.Expr, known); len(u) > 0 {
				t.Errorf("alert %s reads %v, which no service registers", r.Alert, u)
			}
			url := r.Annotations["runbook_url"]
			_, anchor, _ := strings.Cut(url, "#")
			if !strings.Contains(url, "/docs/runbooks.md#") || anchor != strings.ToLower(r.Alert) || !anchors[anchor] {
				t.Errorf("alert %s: runbook %q does not lead to a section %q of docs/runbooks.md", r.Alert, url, r.Alert)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d alerts", n)
	}
}
