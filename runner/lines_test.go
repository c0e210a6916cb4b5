//go:build !e2e

package runner

import (
	"bytes"
	"errors"
	"reflect"
	"syscall"
	"testing"
)

func collect() (*Lines, *[]string) {
	var got []string
	return NewLines(func(l []byte) { got = append(got, string(l)) }), &got
}

func TestLinesSplitsAndStripsCR(t *testing.T) {
	l, got := collect()
	for _, chunk := range []string{"one\r\ntw", "o\n", "\n", "thr", "ee\r", "\nfour"} {
		if n, err := l.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	want := []string{"one", "two", "", "three"}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("lines %q, want %q", *got, want)
	}
	l.Flush()
	l.Flush() // nothing left: no second call
	if want = append(want, "four"); !reflect.DeepEqual(*got, want) {
		t.Fatalf("after Flush %q, want %q", *got, want)
	}
}

func TestLinesLongLineIsOneCall(t *testing.T) {
	l, got := collect()
	line := bytes.Repeat([]byte("0123456789"), 1<<17)
	for rest := line; len(rest) > 0; {
		n := min(len(rest), 4095)
		l.Write(rest[:n])
		rest = rest[n:]
	}
	l.Write([]byte("\r\n"))
	if len(*got) != 1 || (*got)[0] != string(line) {
		t.Fatalf("got %d lines, want one of %d bytes", len(*got), len(line))
	}
}

func TestExitString(t *testing.T) {
	for _, c := range []struct {
		e    Exit
		want string
		ok   bool
	}{
		{Exit{}, "exit code 0", true},
		{Exit{Code: 3}, "exit code 3", false},
		{Exit{Code: -1, Signal: syscall.SIGKILL}, "signal: killed", false},
		{Exit{Code: -1, Err: errors.New("wait: no child")}, "error: wait: no child", false},
	} {
		if c.e.String() != c.want || c.e.Success() != c.ok {
			t.Errorf("%#v: %q %v, want %q %v", c.e, c.e.String(), c.e.Success(), c.want, c.ok)
		}
	}
}

func BenchmarkLines(b *testing.B) {
	chunk := bytes.Repeat([]byte("flood flood flood flood flood flood flood flood flood flood f..\r\n"), 512)
	l := NewLines(func([]byte) {})
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		l.Write(chunk)
	}
}
