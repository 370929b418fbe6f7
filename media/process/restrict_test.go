package process

import (
	"os"
	"os/exec"
	"testing"

	"github.com/davidbyttow/govips/v2/vips"
)

// TestRestrictedLoadersRefuseEverythingElse runs in a child process, since
// blocking loaders lasts for the whole process (other tests decode AVIF and
// rasterize SVG).
func TestRestrictedLoadersRefuseEverythingElse(t *testing.T) {
	if os.Getenv("PROCESS_RESTRICT_CHILD") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRestrictedLoadersRefuseEverythingElse$", "-test.count=1")
		cmd.Env = append(os.Environ(), "PROCESS_RESTRICT_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	jpg := jpegBytes(t, testPicture(32, 32, 1))
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>`)
	if img, err := vips.NewImageFromBuffer(svg); err != nil {
		t.Fatalf("before: SVG does not load at all (%v), so this test proves nothing", err)
	} else {
		img.Close()
	}
	RestrictLoaders()
	if img, err := vips.NewImageFromBuffer(svg); err == nil {
		img.Close()
		t.Fatal("SVG still loads after RestrictLoaders")
	}
	for _, data := range [][]byte{jpg, pngBytes(t, testPicture(32, 32, 2))} {
		if _, err := Image(data, ContentOptions); err != nil {
			t.Fatalf("an allowed format no longer loads: %v", err)
		}
	}
}
