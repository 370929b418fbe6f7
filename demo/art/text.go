package art

import (
	"io"

	"storefront/contract"
	"storefront/demo/prose"
)

// Text writes text chunk n (from 1) of volume vol of a novel. The prose is
// package demo/prose's (texts are catalog data, not drawings): no sentence
// repeats within a work.
func Text(w io.Writer, p *contract.Product, vol, n int) error { return prose.Text(w, p, vol, n) }
