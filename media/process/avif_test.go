package process

import (
	"testing"

	"github.com/davidbyttow/govips/v2/vips"
)

// avifSize decodes an AVIF's dimensions with libvips (Go has no AVIF decoder).
func avifSize(t *testing.T, data []byte) (int, int) {
	t.Helper()
	startVips()
	img, err := vips.NewImageFromBuffer(data)
	if err != nil {
		t.Fatalf("decode avif: %v", err)
	}
	defer img.Close()
	return img.Width(), img.Height()
}
