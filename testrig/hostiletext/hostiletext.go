// Package hostiletext is for tests: text a team file, a crafted state dir
// or an agent could hold to forge what warden writes or prints, and a way
// to put it in every string of a value.
package hostiletext

import "reflect"

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

// Fill sets every exported string of v (and every string in a slice),
// recursively, to Text; nil pointers get a new value first.
func Fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		Fill(v.Elem())
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				Fill(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.String {
			v.Set(reflect.ValueOf([]string{Text, Text}).Convert(v.Type()))
			return
		}
		for i := 0; i < v.Len(); i++ {
			Fill(v.Index(i))
		}
	case reflect.String:
		v.SetString(Text)
	}
}
