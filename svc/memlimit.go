package svc

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
)

// DefaultMemoryFraction is the share of the container's memory limit given
// to the Go runtime as its soft limit (GOMEMLIMIT): the rest is for what the
// runtime does not count (thread stacks of cgo, the binary's text, the page
// cache the kernel charges to the cgroup) and for the collector's lag.
const DefaultMemoryFraction = 0.9

// cgroupUnlimited: cgroup v1 reports "no limit" as the largest multiple of
// the page size below 2^63; anything this large is no limit.
const cgroupUnlimited = 1 << 62

// ContainerMemoryLimit reads the memory limit of the cgroup this process
// runs in: cgroup v2's memory.max, else v1's memory.limit_in_bytes. root is
// the cgroup file system's mount ("/sys/fs/cgroup") and self the process's
// cgroup file ("/proc/self/cgroup"); parameters so tests can give a fake
// tree. It returns 0 (and no error) when there is no limit or no cgroup.
func ContainerMemoryLimit(root, self string) (int64, error) {
	v2path, v1path := "", ""
	if b, err := os.ReadFile(self); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			// hierarchy-ID:controller-list:cgroup-path
			parts := strings.SplitN(sc.Text(), ":", 3)
			if len(parts) != 3 {
				continue
			}
			switch {
			case parts[0] == "0" && parts[1] == "":
				v2path = parts[2]
			case containsController(parts[1], "memory"):
				v1path = parts[2]
			}
		}
	}
	// Inside a container's cgroup namespace the process's path is "/" and
	// the mount shows its own cgroup at the root; on a host the path leads
	// to the service's cgroup. Try the path, then the root.
	candidates := []string{}
	if v2path != "" {
		candidates = append(candidates, filepath.Join(root, v2path, "memory.max"))
	}
	candidates = append(candidates, filepath.Join(root, "memory.max"))
	if v1path != "" {
		candidates = append(candidates, filepath.Join(root, "memory", v1path, "memory.limit_in_bytes"))
	}
	candidates = append(candidates, filepath.Join(root, "memory", "memory.limit_in_bytes"))
	for _, p := range candidates {
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("read memory limit %s: %w", p, err)
		}
		s := strings.TrimSpace(string(b))
		if s == "max" {
			return 0, nil
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("read memory limit %s: %q is not a number", p, s)
		}
		if n <= 0 || n >= cgroupUnlimited {
			return 0, nil
		}
		return n, nil
	}
	return 0, nil
}

func containsController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// SetMemoryLimit gives the Go runtime a soft memory limit of fraction of the
// container's limit, so the collector works harder before the kernel's OOM
// killer ends the process, unless the operator set GOMEMLIMIT (the runtime
// applies it by itself; it wins). It returns the limit in force (0 = none)
// and logs what it decided. Call it once, first thing in main.
func SetMemoryLimit(log *slog.Logger, fraction float64) int64 {
	return setMemoryLimit(log, fraction, os.Getenv("GOMEMLIMIT"), "/sys/fs/cgroup", "/proc/self/cgroup")
}

func setMemoryLimit(log *slog.Logger, fraction float64, env, root, self string) int64 {
	if env != "" {
		cur := debug.SetMemoryLimit(-1)
		log.Info("memory limit from GOMEMLIMIT", "GOMEMLIMIT", env, "bytes", cur)
		return cur
	}
	if fraction <= 0 || fraction > 1 {
		fraction = DefaultMemoryFraction
	}
	limit, err := ContainerMemoryLimit(root, self)
	if err != nil {
		log.Warn("container memory limit unreadable; no GOMEMLIMIT set", "err", err)
		return 0
	}
	if limit == 0 {
		log.Info("no container memory limit; no GOMEMLIMIT set")
		return 0
	}
	soft := int64(float64(limit) * fraction)
	debug.SetMemoryLimit(soft)
	log.Info("memory limit from the container", "container_bytes", limit, "fraction", fraction, "gomemlimit_bytes", soft)
	return soft
}

// MemoryFlag registers -memory-fraction (env MEMORY_LIMIT_FRACTION): the
// share of the container's memory limit SetMemoryLimit gives the runtime.
func MemoryFlag(fs *flag.FlagSet) *float64 {
	f := new(float64)
	*f = DefaultMemoryFraction
	fs.Func("memory-fraction", "share of the container's memory limit (cgroup memory.max) given to the Go runtime as its soft limit, 0-1; GOMEMLIMIT, when set, wins (env MEMORY_LIMIT_FRACTION, default 0.9)", func(v string) error {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || n <= 0 || n > 1 {
			return fmt.Errorf("memory fraction %q: want a number in (0, 1]", v)
		}
		*f = n
		return nil
	})
	return f
}
