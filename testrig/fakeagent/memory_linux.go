package fakeagent

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// memory: a worker (worker.go, every option of it) that holds memory, for
// the memory tests and the admission figure. Parameters are key=value pairs
// after the mode name, besides the worker's:
//
//	memory:hold=400:steps=3
//
//	hold=N     before it reads its first prompt, map N MB and have the kernel
//	           fault every page in (MAP_POPULATE: resident, not the zero
//	           page), and hold them until it exits; it prints "holding N MB"
//	grow=N     then add N MB more every `every` (default 100ms), without end:
//	           an agent that grows past its memory_max
//	once=FILE  grow only when FILE does not exist, and create it: the
//	           session after a restart holds steady
//	child=N    start a child in its process group that holds N MB too (the
//	           whole tree counts); it prints "child holds N MB"
//
// The pages are populated by the kernel, not written by Go code, so a
// binary built with -race holds what it says (the race detector's shadow
// memory is not touched).
func init() {
	Register("memory", modeMemory)
	Register("hold", modeHold)
}

func modeMemory(args []string) int {
	opt := map[string]string{}
	for _, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok {
			opt[k] = v
		}
	}
	if n := atoiOr(opt["child"], 0); n > 0 {
		if _, err := spawn("hold:"+strconv.Itoa(n), false); err != nil {
			fmt.Fprintf(os.Stderr, "fakeagent: spawn: %v\n", err)
			return 1
		}
		fmt.Printf("child holds %d MB\n", n)
	}
	hold := atoiOr(opt["hold"], 0)
	if err := populate(hold); err != nil {
		fmt.Fprintf(os.Stderr, "fakeagent: hold %d MB: %v\n", hold, err)
		return 1
	}
	fmt.Printf("holding %d MB\n", hold)
	if f := opt["once"]; f != "" && atoiOr(opt["grow"], 0) > 0 {
		if _, err := os.Stat(f); err == nil {
			opt["grow"] = "0"
		} else {
			os.WriteFile(f, nil, 0o600)
		}
	}
	if n := atoiOr(opt["grow"], 0); n > 0 {
		every, err := time.ParseDuration(opt["every"])
		if err != nil {
			every = 100 * time.Millisecond
		}
		go func() {
			for {
				time.Sleep(every)
				if populate(n) != nil {
					return
				}
			}
		}()
	}
	return modeWorker(args)
}

// modeHold (hold:N) holds N MB until it is killed (a child of "memory").
func modeHold(args []string) int {
	if err := populate(intArg(args, 0, 1)); err != nil {
		fmt.Fprintf(os.Stderr, "fakeagent: hold: %v\n", err)
		return 1
	}
	signalReady()
	for {
		time.Sleep(time.Hour)
	}
}

// held keeps the mappings reachable for the life of the process.
var held [][]byte

// populate maps n MB of private anonymous memory with every page faulted
// in by the kernel for writing.
func populate(mb int) error {
	if mb <= 0 {
		return nil
	}
	b, err := unix.Mmap(-1, 0, mb<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_POPULATE)
	if err != nil {
		return fmt.Errorf("mmap %d MB: %w", mb, err)
	}
	held = append(held, b)
	return nil
}

func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}
