package catalog

import (
	"testing"
	"unsafe"

	"storefront/contract"
)

// The head of every work is in every edge's memory (150,000 works and
// more): the right-to-left flag takes a byte of the padding after the
// other flags, so the four bools still share the word before
// OriginalLabel and no head grows.
func TestRightToLeftTakesNoWordOfTheHead(t *testing.T) {
	var p contract.Product
	first, next := unsafe.Offsetof(p.IsOriginal), unsafe.Offsetof(p.OriginalLabel)
	if at := unsafe.Offsetof(p.RightToLeft); at < first || at >= next {
		t.Fatalf("RightToLeft at %d, not among the flags at %d..%d", at, first, next)
	}
	if next-first > 8 {
		t.Fatalf("the flags before OriginalLabel take %d bytes, want one word", next-first)
	}
}
