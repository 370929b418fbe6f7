package process

import (
	"archive/zip"
	"bytes"
	"io"
	"path"
	"sort"
	"strings"
)

// archiveFile is one entry of an unpacked archive.
type archiveFile struct {
	Name string
	Data []byte
}

// unzip reads every regular file of a ZIP within lim, refusing the archive as
// a whole when any entry could escape a folder (absolute, "..", backslashes,
// symlinks), when there are too many, or when the sizes (declared or real)
// or any entry's compression ratio betray a ZIP bomb.
func unzip(data []byte, lim Limits) ([]archiveFile, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, refuse(CodeArchive, msgArchive, "zip: %v", err)
	}
	if len(zr.File) > lim.MaxArchiveFiles {
		return nil, refuse(CodeArchive, msgArchive, "%d entries, at most %d", len(zr.File), lim.MaxArchiveFiles)
	}
	var declared uint64
	for _, f := range zr.File {
		if err := safeName(f.Name); err != nil {
			return nil, err
		}
		if m := f.Mode(); !m.IsRegular() && !m.IsDir() {
			return nil, refuse(CodeArchive, msgArchive, "%s is not a regular file (%v)", f.Name, f.Mode())
		}
		declared += f.UncompressedSize64
		if declared > uint64(lim.MaxArchiveBytes) {
			return nil, refuse(CodeArchive, msgArchive, "unpacks to more than %d bytes", lim.MaxArchiveBytes)
		}
		if f.CompressedSize64 > 0 && f.UncompressedSize64/f.CompressedSize64 > uint64(lim.MaxRatio) {
			return nil, refuse(CodeArchive, msgArchive, "%s compresses %d:1", f.Name, f.UncompressedSize64/f.CompressedSize64)
		}
	}
	var out []archiveFile
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, refuse(CodeArchive, msgArchive, "open %s: %v", f.Name, err)
		}
		// Never trust the declared size: read at most one byte more.
		b, err := io.ReadAll(io.LimitReader(rc, int64(f.UncompressedSize64)+1))
		rc.Close()
		if err != nil {
			return nil, refuse(CodeArchive, msgArchive, "read %s: %v", f.Name, err)
		}
		if uint64(len(b)) != f.UncompressedSize64 {
			return nil, refuse(CodeArchive, msgArchive, "%s is not the size it declares", f.Name)
		}
		out = append(out, archiveFile{Name: f.Name, Data: b})
	}
	return out, nil
}

// safeName refuses entry names that could land outside the folder they are
// unpacked into (we never unpack to disk, but a name like that is a crafted
// archive, and the uploader should hear so).
func safeName(name string) error {
	bad := name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, "\\") ||
		strings.ContainsRune(name, 0) || (len(name) > 1 && name[1] == ':')
	if !bad {
		for _, part := range strings.Split(name, "/") {
			if part == ".." {
				bad = true
			}
		}
	}
	if bad {
		return refuse(CodeArchive, msgArchive, "entry name %q leaves the archive", name)
	}
	return nil
}

// ignorable entries of page archives: OS droppings and comic metadata.
func ignorable(name string) bool {
	base := path.Base(name)
	return strings.HasPrefix(name, "__MACOSX/") || strings.HasPrefix(base, ".") ||
		strings.EqualFold(base, "Thumbs.db") || strings.EqualFold(base, "ComicInfo.xml")
}

// ZipPages returns the pictures of a ZIP or CBZ in reading order (names
// compared with numbers as numbers, so page2 comes before page10). Every
// entry must be a JPEG, PNG or WebP by content, apart from OS droppings and
// ComicInfo.xml.
func ZipPages(data []byte, lim Limits) ([][]byte, error) {
	files, err := unzip(data, lim)
	if err != nil {
		return nil, err
	}
	var pages []archiveFile
	for _, f := range files {
		if ignorable(f.Name) {
			continue
		}
		kind, err := Sniff(f.Data)
		if err != nil || !IsImage(kind) {
			return nil, refuse(CodeType, msgType, "%s is not a picture", f.Name)
		}
		pages = append(pages, f)
	}
	if len(pages) == 0 {
		return nil, refuse(CodeArchive, msgEmpty, "no pictures")
	}
	sort.SliceStable(pages, func(i, j int) bool { return naturalLess(pages[i].Name, pages[j].Name) })
	out := make([][]byte, len(pages))
	for i, p := range pages {
		out[i] = p.Data
	}
	return out, nil
}

// naturalLess compares names with runs of digits as numbers.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digits(s string) int {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return n
}
