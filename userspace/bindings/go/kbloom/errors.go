// SPDX-License-Identifier: GPL-2.0

package kbloom

import "syscall"

// Error is the error of a failed call: the operation, the filter's name
// (or image path), the errno (or os.ErrClosed after Close) and the
// library's message.  It unwraps to Err, so errors.Is(err,
// os.ErrNotExist) (ENOENT: no such filter, or destroyed),
// errors.Is(err, fs.ErrPermission) (EPERM: not granted) and
// errors.Is(err, syscall.EROFS) (an add on a reader or an image) work.
type Error struct {
	Op   string // "open", "open image", "exists", "add", ...
	Name string
	Err  error // a syscall.Errno, or os.ErrClosed
	Msg  string
}

func (e *Error) Error() string {
	s := "kbloom: " + e.Op + " " + e.Name + ": "
	if e.Msg != "" {
		return s + e.Msg
	}
	return s + e.Err.Error()
}

func (e *Error) Unwrap() error {
	return e.Err
}

// Errno is the error's errno, 0 if it has none (a closed filter).
func (e *Error) Errno() syscall.Errno {
	if n, ok := e.Err.(syscall.Errno); ok {
		return n
	}
	return 0
}
