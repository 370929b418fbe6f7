package process

// #cgo pkg-config: vips
// #include <vips/vips.h>
import "C"

import "unsafe"

// RestrictLoaders blocks every libvips loader but JPEG, PNG and WebP for the
// rest of the process: a second wall behind Sniff and the loader check in
// Image, so no slip in either lets an upload reach librsvg, poppler,
// ImageMagick or the other loaders libvips links. Services that process
// uploads (the writer) call it once at start; tests and tools that load
// trusted SVG (the demo's rasterizing) do not.
func RestrictLoaders() {
	startVips()
	block := func(name string, on bool) {
		c := C.CString(name)
		defer C.free(unsafe.Pointer(c))
		state := C.gboolean(0)
		if on {
			state = 1
		}
		C.vips_operation_block_set(c, state)
	}
	block("VipsForeignLoad", true)
	for _, ok := range []string{"VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadWebp"} {
		block(ok, false)
	}
}
