// Command bench-go times the generated Go SDK's strict decoder for the cross-binding parse benchmark
// (tools/bench/wire-parsers.ts), against encoding/json on the same bytes.
//
//	bench-go time <file> <inner> <samples>   alternating samples of <inner> calls of
//	    DecodeDispatchEnvelope and of json.Unmarshal into any (the plain parser); prints
//	    {"ms": <median ms per call>, "baseline_ms": <median>, "ratio": <median of per-sample ratios>,
//	    "cpu_ratio": <the same ratio of process CPU time>}
//	bench-go peak <ours|plain> <file>         one parse; prints {"ms": <wall ms>, "rss_before_kb": <VmRSS
//	    before>, "peak_kb": <VmHWM after, with the high-water mark reset just before the parse>,
//	    "verdict": "valid" | "<rule> <pointer>"}
//
// Peak memory comes from /proc/self/status (Linux): the high-water mark is reset by writing 5 to
// /proc/self/clear_refs after the file is read, so the figure covers the parse alone.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"lifeloop-callback.dev/lifeloop"
)

func ours(data []byte) error {
	_, err := lifeloop.DecodeDispatchEnvelope(data)
	return err
}

func plain(data []byte) error {
	var v any
	return json.Unmarshal(data, &v)
}

// cpuNow is the CPU time of the whole process (every thread, the garbage collector's included), in ns.
func cpuNow() float64 {
	var ts syscall.Timespec
	const clockProcessCPUTimeID = 2
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockProcessCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		fail("clock_gettime: %v", errno)
	}
	return float64(ts.Sec)*1e9 + float64(ts.Nsec)
}

// perCall returns the wall and the process CPU time per call of f, in ms.
func perCall(f func([]byte) error, data []byte, inner int) (float64, float64) {
	start, cpu := time.Now(), cpuNow()
	for i := 0; i < inner; i++ {
		if err := f(data); err != nil {
			fail("document rejected while timing: %v", err)
		}
	}
	return float64(time.Since(start).Nanoseconds()) / 1e6 / float64(inner), (cpuNow() - cpu) / 1e6 / float64(inner)
}

func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}

func status(field string) int {
	text, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fail("read /proc/self/status: %v", err)
	}
	m := regexp.MustCompile(field + `:\s+(\d+)`).FindSubmatch(text)
	if m == nil {
		fail("no %s in /proc/self/status", field)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench-go: "+format+"\n", args...)
	os.Exit(2)
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		fail("not a positive count: %q", s)
	}
	return n
}

func main() {
	if len(os.Args) < 4 {
		fail("usage: bench-go time <file> <inner> <samples> | bench-go peak <ours|plain> <file>")
	}
	out := json.NewEncoder(os.Stdout)
	switch os.Args[1] {
	case "time":
		data, err := os.ReadFile(os.Args[2])
		if err != nil {
			fail("%v", err)
		}
		inner, samples := atoi(os.Args[3]), atoi(os.Args[4])
		for i := 0; i < 3; i++ {
			perCall(ours, data, inner)
			perCall(plain, data, inner)
		}
		var a, b, r, rc []float64
		for s := 0; s < samples; s++ {
			x, xc := perCall(ours, data, inner)
			y, yc := perCall(plain, data, inner)
			a, b, r, rc = append(a, x), append(b, y), append(r, x/y), append(rc, xc/yc)
		}
		_ = out.Encode(map[string]float64{"ms": median(a), "baseline_ms": median(b), "ratio": median(r), "cpu_ratio": median(rc)})
	case "peak":
		f := ours
		if os.Args[2] == "plain" {
			f = plain
		} else if os.Args[2] != "ours" {
			fail("peak wants ours or plain, not %q", os.Args[2])
		}
		data, err := os.ReadFile(os.Args[3])
		if err != nil {
			fail("%v", err)
		}
		runtime.GC()
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			fail("reset the RSS high-water mark: %v", err)
		}
		before := status("VmRSS")
		start := time.Now()
		err = f(data)
		ms := float64(time.Since(start).Nanoseconds()) / 1e6
		peak := status("VmHWM")
		verdict := "valid"
		var v *lifeloop.ValidationError
		if errors.As(err, &v) && len(v.Issues) > 0 {
			verdict = v.Issues[0].Rule + " " + v.Issues[0].Pointer
		} else if err != nil {
			verdict = err.Error()
		}
		_ = out.Encode(map[string]any{"ms": ms, "rss_before_kb": before, "peak_kb": peak, "verdict": verdict})
	default:
		fail("unknown mode %q", os.Args[1])
	}
}
