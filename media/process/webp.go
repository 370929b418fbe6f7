package process

import (
	"encoding/binary"
	"errors"
)

// stripWebPMetadata drops the EXIF and XMP chunks of an extended WebP and
// clears their flags. libvips 8.14's WebP writer adds an EXIF block it makes
// up itself (resolution, orientation 1, pixel size) even when told to strip;
// nothing of the upload is in it, but it is 200 bytes a segment nobody reads.
func stripWebPMetadata(b []byte) ([]byte, error) {
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
		return nil, errors.New("not a WebP file")
	}
	out := make([]byte, 12, len(b))
	copy(out, b[:12])
	vp8x := -1
	for p := 12; p < len(b); {
		if p+8 > len(b) {
			return nil, errors.New("truncated WebP chunk header")
		}
		fourcc := string(b[p : p+4])
		size := int(binary.LittleEndian.Uint32(b[p+4 : p+8]))
		end := p + 8 + size + size&1 // chunks are padded to even sizes
		if end > len(b) || end < p {
			return nil, errors.New("truncated WebP chunk")
		}
		switch fourcc {
		case "EXIF", "XMP ":
		default:
			if fourcc == "VP8X" {
				vp8x = len(out)
			}
			out = append(out, b[p:end]...)
		}
		p = end
	}
	if vp8x >= 0 && vp8x+8 < len(out) {
		out[vp8x+8] &^= 0x08 | 0x04 // EXIF and XMP present flags
	}
	binary.LittleEndian.PutUint32(out[4:8], uint32(len(out)-8))
	return out, nil
}
