package server

import (
	"bufio"
	"errors"
	"io"
	"net"
	"sync"

	"github.com/valyala/fasthttp"
)

// directMin is the body size from which a cached answer is sent by
// directBody. Smaller bodies fit the connection's write buffer with their
// header and go out in one write anyway.
const directMin = 2 << 10

// directBody sends a large cached answer as one writev of the response header
// and the body, straight from the cache's bytes.
//
// fasthttp copies a body into the connection's 4 KB write buffer: a 20 KB list
// costs a 20 KB memmove and two or three writes, so the client sees the
// answer in several TCP segments. A bigger write buffer saves the writes but
// is kept by every keep-alive connection for its life (32 KB x 10,000
// connections is 0.3 GB). fasthttp hands a body stream that implements
// io.WriterTo the buffered writer that holds the header it just serialized;
// when that buffer holds exactly that header (no pipelined answer before it,
// nothing flushed yet), WriteTo discards it and writes the same header and
// the body in one system call. In every other case it falls back to writing
// the body through the buffer, as fasthttp would.
type directBody struct {
	conn net.Conn
	hdr  *fasthttp.ResponseHeader
	body []byte
	off  int
	iov  [2][]byte
}

var directPool = sync.Pool{New: func() any { return new(directBody) }}

// setCachedBody makes b, a cached body nobody modifies, the body of ctx's
// answer: by directBody from directMin bytes on.
func setCachedBody(ctx *fasthttp.RequestCtx, b []byte) {
	if len(b) < directMin {
		ctx.Response.SetBodyRaw(b)
		return
	}
	d := directPool.Get().(*directBody)
	d.conn, d.hdr, d.body, d.off = ctx.Conn(), &ctx.Response.Header, b, 0
	ctx.Response.SetBodyStream(d, len(b))
}

// Read serves whoever reads the body instead of sending it (a test, a
// middleware calling Response.Body).
func (d *directBody) Read(p []byte) (int, error) {
	if d.off >= len(d.body) {
		return 0, io.EOF
	}
	n := copy(p, d.body[d.off:])
	d.off += n
	return n, nil
}

// WriteTo sends what is left of the body to w, or header and body to the
// connection under w in one writev when w holds nothing but the header.
func (d *directBody) WriteTo(w io.Writer) (int64, error) {
	rest := d.body[d.off:]
	if bw, ok := w.(*bufio.Writer); ok && d.conn != nil && d.off == 0 && d.hdr != nil {
		// Header() serializes the header again, as ResponseHeader.Write just
		// did into bw: same fields, same order, same length (a Date that
		// turned a second meanwhile has the same width). The lengths match
		// only when bw holds that header alone: a pipelined answer still
		// buffered before it, or a header larger than the buffer (partly
		// flushed), makes them differ.
		hdr := d.hdr.Header()
		if bw.Buffered() == len(hdr) {
			bw.Reset(d.conn)
			d.iov = [2][]byte{hdr, rest}
			bufs := net.Buffers(d.iov[:])
			n, err := bufs.WriteTo(d.conn)
			d.iov = [2][]byte{}
			sent := max(n-int64(len(hdr)), 0)
			d.off += int(sent)
			if err == nil && sent != int64(len(rest)) {
				err = errShortDirectWrite
			}
			return sent, err
		}
	}
	n, err := w.Write(rest)
	d.off += n
	return int64(n), err
}

var errShortDirectWrite = errors.New("direct body: short write")

// Close returns d to its pool; fasthttp closes a body stream once the answer
// is written or dropped.
func (d *directBody) Close() error {
	*d = directBody{}
	directPool.Put(d)
	return nil
}
