package protocol

import (
	"reflect"
	"unsafe"

	"github.com/charmbracelet/x/vt"
	"github.com/hashicorp/go-hclog"
)

// x/vt sizes two things for a terminal a person scrolls back in, which a
// screen reader never uses, and has no option for either:
//
//   - its ANSI parser's buffer for the payload of OSC, DCS, SOS, PM and APC
//     strings: 4 MiB per emulator. The escape filter drops all of these
//     before they reach the emulator, so it is never filled;
//   - a scrollback for the alternate screen (up to 10000 lines of 200
//     cells of 112 bytes: 224 MiB), which every erase of that screen
//     (CSI 2 J) fills with the whole screen and nothing ever reads or
//     clears: Emulator.Scrollback and ClearScrollback reach the main
//     screen's only. A TUI repainting on the alternate screen grew by ~2 MiB
//     per answer (BenchmarkTUITeam in runner).
//
// trimEmulator reaches both through the emulator's unexported fields and
// checks their types first; a field that is not what it was when this was
// written is left alone, and the debug log says so.

// parserDataSize is the parser buffer trimEmulator leaves.
const parserDataSize = 4 << 10

func trimEmulator(log hclog.Logger, em *vt.Emulator) {
	e := reflect.ValueOf(em).Elem()
	if !shrinkParserData(e, parserDataSize) {
		log.Debug("cannot shrink the emulator's parser buffer (4 MiB per screen)")
	}
	if !dropAltScrollback(e) {
		log.Debug("cannot drop the alternate screen's scrollback")
	}
}

// shrinkParserData calls SetDataSize(size) on the emulator's parser.
func shrinkParserData(e reflect.Value, size int) bool {
	f := e.FieldByName("parser")
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return false
	}
	p := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	set := p.MethodByName("SetDataSize")
	if !set.IsValid() || set.Type().NumIn() != 1 || set.Type().In(0).Kind() != reflect.Int || set.Type().NumOut() != 0 {
		return false
	}
	set.Call([]reflect.Value{reflect.ValueOf(size)})
	return true
}

// dropAltScrollback removes the alternate screen's scrollback (scrs[1]); a
// screen without one pushes nothing on erase or scroll.
func dropAltScrollback(e reflect.Value) bool {
	scrs, ok := screensOf(e)
	if ok {
		scrs[1].SetScrollback(nil)
	}
	return ok
}

// screensOf reaches the emulator's two screens (main, alternate: its
// unexported scrs); false if that field is not what it was.
func screensOf(e reflect.Value) (scrs [2]*vt.Screen, ok bool) {
	f := e.FieldByName("scrs")
	if !f.IsValid() || f.Kind() != reflect.Array || f.Len() != 2 || f.Type().Elem() != reflect.TypeFor[vt.Screen]() {
		return scrs, false
	}
	for i := range scrs {
		scrs[i] = (*vt.Screen)(unsafe.Pointer(f.Index(i).UnsafeAddr()))
	}
	return scrs, true
}
