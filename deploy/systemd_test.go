package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Each unit runs one of our binaries with an environment file of this folder,
// and every variable that file sets is one the service reads.
func TestSystemdUnitsAndEnvFiles(t *testing.T) {
	envs := envNames(t)
	units, _ := filepath.Glob("systemd/*.service")
	if len(units) < 3 {
		t.Fatalf("units: %v", units)
	}
	exec := regexp.MustCompile(`(?m)^ExecStart=/opt/storefront/bin/(\w+)( migrate)?$`)
	envFile := regexp.MustCompile(`(?m)^EnvironmentFile=/etc/storefront/([\w-]+\.env)$`)
	seen := map[string]bool{}
	for _, u := range units {
		b, err := os.ReadFile(u)
		if err != nil {
			t.Fatal(err)
		}
		m, f := exec.FindSubmatch(b), envFile.FindSubmatch(b)
		if m == nil || f == nil {
			t.Errorf("%s: no ExecStart of /opt/storefront/bin/<service> or no EnvironmentFile=/etc/storefront/<file>.env", u)
			continue
		}
		service := string(m[1])
		known, ok := envs[service]
		if !ok {
			t.Errorf("%s runs %s, none of our services", u, service)
			continue
		}
		for _, opt := range []string{"DynamicUser=yes", "NoNewPrivileges=yes", "ProtectSystem=strict", "CapabilityBoundingSet=\n"} {
			if !strings.Contains(string(b), "\n"+opt) {
				t.Errorf("%s lacks %s", u, strings.TrimSpace(opt))
			}
		}
		file := filepath.Join("systemd", string(f[1]))
		seen[file] = true
		for k := range readEnvFile(t, file) {
			if !known[k] {
				t.Errorf("%s (for %s) sets %s, which %s does not read", file, u, k, service)
			}
		}
	}
	files, _ := filepath.Glob("systemd/*.env")
	for _, f := range files {
		if !seen[f] {
			t.Errorf("%s is used by no unit", f)
		}
	}
}
