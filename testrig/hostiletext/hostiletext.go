// Package hostiletext is for tests: text a team file, a crafted state dir
// or an agent could hold to forge what warden writes or prints, and a way
// to put it in every string of a value.
package hostiletext

import (
	"fmt"
	"reflect"
	"strings"
)

// Text holds a newline, pipes and a heading (forged table rows and
// sections), OSC 52 (the clipboard), OSC 0 (the window title), CSI 2J
// (clear), C1 CSI and OSC (U+009B, U+009D), ST, NUL and DEL; and what makes
// text read otherwise than it is: a right-to-left override (U+202E, so
// "txt.exe" shows as "exe.txt"), a left-to-right isolate (U+2066), a
// zero-width space (U+200B), a BOM (U+FEFF), a tag character (U+E0041, a
// hidden "A" a model reads), a variation selector (U+FE0F) and a line
// separator (U+2028).
const Text = "x\n| forged | row |\n# Forged\x1b]52;c;SGVsbG8=\x07\x1b]0;title\x07\x1b[2J\u009b31m\u009d0;t\u009c\x00\x7f" +
	"\u202eexe.txt\u2066\u200b\ufeff\U000E0041\ufe0f\u2028y"

// Markup holds what a Markdown renderer turns into HTML, links or code
// (issue 33): a script element, a javascript: link and image, an autolink,
// a link reference definition, an entity, a code span, emphasis, a table's
// pipe, a heading's hash, a list's dash and an ordered list's "1.".
const Markup = "- <script>alert(1)</script> [x](javascript:alert(1)) ![i](javascript:alert(2)) <http://evil.example> " +
	"[r]: javascript:alert(3) &lt;b&gt; `code` **bold** _em_ ~~s~~ | pipe | # H 1. > q <img src=x onerror=alert(4)>"

// Fill sets every exported string of v (and every string in a slice),
// recursively, to Text; nil pointers get a new value first.
func Fill(v reflect.Value) { FillWith(v, Text) }

// FillWith is Fill with text (Markup, say) in place of Text; a string map
// gets a key of its own with text as its value, a map of pointers one
// filled value.
func FillWith(v reflect.Value, text string) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		FillWith(v.Elem(), text)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				FillWith(v.Field(i), text)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.String {
			v.Set(reflect.ValueOf([]string{text, text}).Convert(v.Type()))
			return
		}
		for i := 0; i < v.Len(); i++ {
			FillWith(v.Index(i), text)
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		e := reflect.New(v.Type().Elem()).Elem()
		FillWith(e, text)
		v.SetMapIndex(reflect.ValueOf(text).Convert(v.Type().Key()), e)
	case reflect.String:
		v.SetString(text)
	}
}

// acting are the pieces of Markup a Markdown renderer acts on, each by its
// first character: an element, a link, an image, an autolink, a link
// definition, an entity, a code span, emphasis, strikethrough, a cell.
var acting = []string{"<script", "</script", "<img", "<http", "](javascript", "]: javascript", "![", "&lt;", "`code`",
	"**bold", "_em_", "~~s", "| pipe"}

// Acting returns the pieces of Markup that md holds unescaped — whose
// first character no backslash escapes —, where a renderer would make
// HTML, a link or a code span of them; none when md holds Markup only as
// text (issue 33).
func Acting(md string) []string {
	var out []string
	for _, a := range acting {
		for i := 0; ; {
			j := strings.Index(md[i:], a)
			if j < 0 {
				break
			}
			j += i
			n := 0
			for k := j - 1; k >= 0 && md[k] == '\\'; k-- {
				n++
			}
			if n%2 == 0 {
				out = append(out, fmt.Sprintf("%q at %d", a, j))
			}
			i = j + 1
		}
	}
	return out
}
