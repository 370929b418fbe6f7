package svc

import (
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The limit is found where each cgroup version keeps it, in a container's
// namespace (the process at "/") and on a host (the service's own path).
func TestContainerMemoryLimit(t *testing.T) {
	for name, c := range map[string]struct {
		files map[string]string
		self  string
		want  int64
	}{
		"v2 container":     {map[string]string{"memory.max": "2147483648\n"}, "0::/\n", 2 << 30},
		"v2 host path":     {map[string]string{"system.slice/edge.service/memory.max": "1073741824\n", "memory.max": "max\n"}, "0::/system.slice/edge.service\n", 1 << 30},
		"v2 unlimited":     {map[string]string{"memory.max": "max\n"}, "0::/\n", 0},
		"v1 container":     {map[string]string{"memory/memory.limit_in_bytes": "536870912\n"}, "12:memory:/\n4:cpu,cpuacct:/\n", 512 << 20},
		"v1 unlimited":     {map[string]string{"memory/memory.limit_in_bytes": "9223372036854771712\n"}, "12:memory:/\n", 0},
		"v1 combined list": {map[string]string{"memory/kube/pod1/memory.limit_in_bytes": "268435456\n"}, "7:cpu,memory:/kube/pod1\n", 256 << 20},
		"no cgroup":        {map[string]string{}, "", 0},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			for p, s := range c.files {
				write(t, filepath.Join(root, "fs", p), s)
			}
			self := filepath.Join(root, "self")
			write(t, self, c.self)
			got, err := ContainerMemoryLimit(filepath.Join(root, "fs"), self)
			if err != nil || got != c.want {
				t.Fatalf("got %d %v, want %d", got, err, c.want)
			}
		})
	}
}

// 90% of the container's limit becomes the runtime's soft limit, unless
// GOMEMLIMIT says otherwise. Not parallel: the runtime's limit is global.
func TestSetMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	root := t.TempDir()
	write(t, filepath.Join(root, "fs", "memory.max"), "2147483648\n")
	write(t, filepath.Join(root, "self"), "0::/\n")
	log := slog.New(slog.DiscardHandler)

	got := setMemoryLimit(log, 0.9, "", filepath.Join(root, "fs"), filepath.Join(root, "self"))
	f := 0.9
	if want := int64(float64(2<<30) * f); got != want || debug.SetMemoryLimit(-1) != want {
		t.Fatalf("limit %d (runtime %d), want %d", got, debug.SetMemoryLimit(-1), want)
	}
	// GOMEMLIMIT given: the runtime's own value stays.
	debug.SetMemoryLimit(1500 << 20)
	if got := setMemoryLimit(log, 0.9, "1500MiB", filepath.Join(root, "fs"), filepath.Join(root, "self")); got != 1500<<20 {
		t.Fatalf("with GOMEMLIMIT: %d", got)
	}
}
